#include "models/ib_fabric.hpp"

#include "models/flow_network.hpp"

#include <algorithm>
#include <stdexcept>

namespace nvlsim {

IbFabric::IbFabric(const ClusterShape& shape, const FabricParams& fabric)
    : shape_(shape),
      nic_bw_(fabric.nic_bw),
      rails_(shape.gpus_per_tray),
      trays_per_leaf_(fabric.ib_switch_radix / 2),
      leaves_per_rail_((shape.trays() + trays_per_leaf_ - 1) / trays_per_leaf_),
      leaf_groups_per_pod_(0),
      pods_(1),
      leaf_uplink_bw_(trays_per_leaf_ * fabric.nic_bw / fabric.ib_oversubscription) {
  if (fabric.ib_switch_radix < 2) throw std::invalid_argument("IbFabric: switch radix must be at least 2");
  const int radix = fabric.ib_switch_radix;
  // A spine layer of radix-port switches reaches at most radix leaves; more need pods and a core. A pod's
  // spine reaches radix/2 leaves, those of radix/2 / rails tray groups (at least one).
  leaf_groups_per_pod_ = leaves() <= radix ? leaves_per_rail_ : std::max(1, radix / 2 / rails_);
  pods_ = (leaves_per_rail_ + leaf_groups_per_pod_ - 1) / leaf_groups_per_pod_;

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

std::vector<int> IbFabric::leaves_of_pod(int pod) const {
  const int first = pod * leaf_groups_per_pod_;
  const int end = std::min(first + leaf_groups_per_pod_, leaves_per_rail_);
  std::vector<int> leaves;
  for (int rail = 0; rail < rails_; ++rail)
    for (int group = first; group < end; ++group) leaves.push_back(rail * leaves_per_rail_ + group);
  return leaves;
}

double IbFabric::pod_uplink_bw(int pod) const {
  return static_cast<double>(leaves_of_pod(pod).size()) * leaf_uplink_bw_;
}

double IbFabric::bisection_bandwidth() const {
  // A super source feeds the NICs of the first half of the trays, a super sink drains the second half's;
  // every fabric edge is full duplex.
  const std::size_t n = boost::num_vertices(graph_);
  const std::size_t source = n;
  const std::size_t sink = n + 1;
  FlowNetwork flow(n + 2);
  const auto weight = boost::get(boost::edge_weight, graph_);
  for (auto [it, end] = boost::edges(graph_); it != end; ++it)
    flow.add_link(boost::source(*it, graph_), boost::target(*it, graph_), weight[*it]);
  const int half = shape_.trays() / 2;
  for (int gpu = 0; gpu < shape_.gpus(); ++gpu) {
    if (shape_.tray_of_gpu(gpu) < half)
      flow.add_arc(source, static_cast<std::size_t>(gpu), nic_bw_);
    else
      flow.add_arc(static_cast<std::size_t>(gpu), sink, nic_bw_);
  }
  return flow.max_flow(source, sink);
}

}  // namespace nvlsim
