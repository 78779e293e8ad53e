#include "models/ib_fabric.hpp"

#include <boost/graph/push_relabel_max_flow.hpp>

#include <algorithm>
#include <stdexcept>

namespace nvlsim {

IbFabric::IbFabric(const ClusterShape& shape, const FabricParams& fabric)
    : shape_(shape),
      nic_bw_(fabric.nic_bw),
      rails_(shape.gpus_per_tray),
      trays_per_leaf_(fabric.ib_switch_radix / 2),
      leaves_per_rail_((shape.trays() + trays_per_leaf_ - 1) / trays_per_leaf_),
      leaves_per_pod_(0),
      pods_(1),
      leaf_uplink_bw_(trays_per_leaf_ * fabric.nic_bw / fabric.ib_oversubscription) {
  if (fabric.ib_switch_radix < 2) throw std::invalid_argument("IbFabric: switch radix must be at least 2");
  const int radix = fabric.ib_switch_radix;
  // A spine layer of radix-port switches reaches at most radix leaves; more need pods and a core.
  leaves_per_pod_ = leaves() <= radix ? leaves() : radix / 2;
  pods_ = (leaves() + leaves_per_pod_ - 1) / leaves_per_pod_;

  const int nics = shape.gpus();
  const int first_leaf = nics;
  const int first_pod = first_leaf + leaves();
  const int core = first_pod + pods_;
  graph_ = Graph(static_cast<std::size_t>(core + 1));
  for (int gpu = 0; gpu < nics; ++gpu) boost::add_edge(gpu, first_leaf + leaf_of_gpu(gpu), nic_bw_, graph_);
  for (int leaf = 0; leaf < leaves(); ++leaf)
    boost::add_edge(first_leaf + leaf, first_pod + pod_of_leaf(leaf), leaf_uplink_bw_, graph_);
  if (pods_ > 1)
    for (int pod = 0; pod < pods_; ++pod) boost::add_edge(first_pod + pod, core, pod_uplink_bw(pod), graph_);
}

int IbFabric::leaf_of_gpu(int gpu) const {
  const int tray = shape_.tray_of_gpu(gpu);
  const int rail = gpu % rails_;
  return rail * leaves_per_rail_ + tray / trays_per_leaf_;
}

std::vector<int> IbFabric::gpus_of_leaf(int leaf) const {
  const int rail = leaf / leaves_per_rail_;
  const int first_tray = (leaf % leaves_per_rail_) * trays_per_leaf_;
  const int end_tray = std::min(first_tray + trays_per_leaf_, shape_.trays());
  std::vector<int> gpus;
  for (int tray = first_tray; tray < end_tray; ++tray) gpus.push_back(shape_.first_gpu_of_tray(tray) + rail);
  return gpus;
}

double IbFabric::pod_uplink_bw(int pod) const {
  const int first = pod * leaves_per_pod_;
  const int count = std::min(leaves_per_pod_, leaves() - first);
  return count * leaf_uplink_bw_;
}

double IbFabric::bisection_bandwidth() const {
  // Directed copy with a super source feeding the first half of the NICs and a super sink fed by the
  // second half; every fabric edge becomes two opposite arcs of its capacity.
  using Traits = boost::adjacency_list_traits<boost::vecS, boost::vecS, boost::directedS>;
  using FlowGraph = boost::adjacency_list<
      boost::vecS, boost::vecS, boost::directedS, boost::no_property,
      boost::property<boost::edge_capacity_t, double,
                      boost::property<boost::edge_residual_capacity_t, double,
                                      boost::property<boost::edge_reverse_t, Traits::edge_descriptor>>>>;
  const std::size_t n = boost::num_vertices(graph_);
  FlowGraph flow(n + 2);
  const std::size_t source = n;
  const std::size_t sink = n + 1;
  auto capacity = boost::get(boost::edge_capacity, flow);
  auto reverse = boost::get(boost::edge_reverse, flow);
  const auto arc = [&](std::size_t u, std::size_t v, double c) {
    const auto e = boost::add_edge(u, v, flow).first;
    const auto r = boost::add_edge(v, u, flow).first;
    capacity[e] = c;
    capacity[r] = 0;
    reverse[e] = r;
    reverse[r] = e;
  };
  const auto weight = boost::get(boost::edge_weight, graph_);
  for (auto [it, end] = boost::edges(graph_); it != end; ++it) {
    arc(boost::source(*it, graph_), boost::target(*it, graph_), weight[*it]);
    arc(boost::target(*it, graph_), boost::source(*it, graph_), weight[*it]);
  }
  const int half = shape_.trays() / 2;
  for (int gpu = 0; gpu < shape_.gpus(); ++gpu) {
    if (shape_.tray_of_gpu(gpu) < half)
      arc(source, static_cast<std::size_t>(gpu), nic_bw_);
    else
      arc(static_cast<std::size_t>(gpu), sink, nic_bw_);
  }
  return boost::push_relabel_max_flow(flow, source, sink);
}

}  // namespace nvlsim
