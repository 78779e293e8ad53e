#include "models/flow_network.hpp"

#include <boost/graph/push_relabel_max_flow.hpp>

namespace nvlsim {

void FlowNetwork::add_arc(std::size_t u, std::size_t v, double capacity) {
  auto caps = boost::get(boost::edge_capacity, graph_);
  auto reverse = boost::get(boost::edge_reverse, graph_);
  const auto e = boost::add_edge(u, v, graph_).first;
  const auto r = boost::add_edge(v, u, graph_).first;
  caps[e] = capacity;
  caps[r] = 0;
  reverse[e] = r;
  reverse[r] = e;
}

double FlowNetwork::max_flow(std::size_t source, std::size_t sink) {
  return boost::push_relabel_max_flow(graph_, source, sink);
}

}  // namespace nvlsim
