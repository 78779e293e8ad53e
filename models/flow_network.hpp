#pragma once
// A directed capacity network for maximum-flow questions about the fabric graphs (Boost push-relabel).

#include <boost/graph/adjacency_list.hpp>

#include <cstddef>

namespace nvlsim {

class FlowNetwork {
 public:
  explicit FlowNetwork(std::size_t vertices) : graph_(vertices) {}
  // An arc u -> v of capacity c (with its zero-capacity reverse arc, as push-relabel needs).
  void add_arc(std::size_t u, std::size_t v, double capacity);
  // A full-duplex link: capacity c each way.
  void add_link(std::size_t u, std::size_t v, double capacity) {
    add_arc(u, v, capacity);
    add_arc(v, u, capacity);
  }
  double max_flow(std::size_t source, std::size_t sink);

 private:
  using Traits = boost::adjacency_list_traits<boost::vecS, boost::vecS, boost::directedS>;
  using Graph = boost::adjacency_list<
      boost::vecS, boost::vecS, boost::directedS, boost::no_property,
      boost::property<boost::edge_capacity_t, double,
                      boost::property<boost::edge_residual_capacity_t, double,
                                      boost::property<boost::edge_reverse_t, Traits::edge_descriptor>>>>;
  Graph graph_;
};

}  // namespace nvlsim
