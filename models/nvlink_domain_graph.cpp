#include "models/nvlink_domain_graph.hpp"

#include "models/flow_network.hpp"

#include <boost/graph/bipartite.hpp>
#include <boost/graph/connected_components.hpp>

#include <stdexcept>
#include <vector>

namespace nvlsim {

NvlinkDomainGraph::NvlinkDomainGraph(int gpus, int switches, double link_bw)
    : gpus_(gpus), switches_(switches), link_bw_(link_bw), graph_(static_cast<std::size_t>(gpus + switches)) {
  if (gpus < 1 || switches < 1 || !(link_bw > 0)) throw std::invalid_argument("NvlinkDomainGraph: bad size");
  for (int g = 0; g < gpus; ++g)
    for (int s = 0; s < switches; ++s) boost::add_edge(static_cast<std::size_t>(g), switch_vertex(s), graph_);
}

std::size_t NvlinkDomainGraph::healthy_links() const {
  return boost::num_edges(graph_);
}

int NvlinkDomainGraph::gpu_degree(int gpu) const {
  return static_cast<int>(boost::out_degree(static_cast<std::size_t>(gpu), graph_));
}

int NvlinkDomainGraph::switch_degree(int nvswitch) const {
  return static_cast<int>(boost::out_degree(switch_vertex(nvswitch), graph_));
}

bool NvlinkDomainGraph::bipartite() const {
  return boost::is_bipartite(graph_);
}

int NvlinkDomainGraph::components() const {
  std::vector<int> component(boost::num_vertices(graph_));
  return static_cast<int>(boost::connected_components(graph_, component.data()));
}

void NvlinkDomainGraph::fail_switch(int nvswitch) {
  boost::clear_vertex(switch_vertex(nvswitch), graph_);
}

void NvlinkDomainGraph::fail_link(int gpu, int nvswitch) {
  boost::remove_edge(static_cast<std::size_t>(gpu), switch_vertex(nvswitch), graph_);
}

double NvlinkDomainGraph::gpu_bandwidth(int gpu) const {
  return gpu_degree(gpu) * link_bw_;
}

double NvlinkDomainGraph::aggregate_bandwidth() const {
  double sum = 0;
  for (int g = 0; g < gpus_; ++g) sum += 2 * gpu_bandwidth(g);
  return sum;
}

double NvlinkDomainGraph::max_flow(int gpu_a, int gpu_b) const {
  // Each NVLink is full duplex: link_bw each way.
  FlowNetwork flow(boost::num_vertices(graph_));
  for (auto [it, end] = boost::edges(graph_); it != end; ++it)
    flow.add_link(boost::source(*it, graph_), boost::target(*it, graph_), link_bw_);
  return flow.max_flow(static_cast<std::size_t>(gpu_a), static_cast<std::size_t>(gpu_b));
}

}  // namespace nvlsim
