#pragma once
// One NVLink domain as a graph (Boost.Graph): GPUs and NVSwitch chips, one NVLink between every GPU and
// every switch chip: the complete bipartite graph K(18,72) of a GB200 NVL72 rack (DOMAIN.md §1).
// It answers what SimGrid's links cannot: what a GPU keeps when switches or links fail, the domain's
// aggregate bandwidth, and the bandwidth between two GPUs as a maximum flow.

#include <boost/graph/adjacency_list.hpp>

namespace nvlsim {

class NvlinkDomainGraph {
 public:
  // link_bw: bytes/s each way per NVLink.
  NvlinkDomainGraph(int gpus, int switches, double link_bw);

  int gpus() const { return gpus_; }
  int switches() const { return switches_; }
  std::size_t healthy_links() const;
  int gpu_degree(int gpu) const;
  int switch_degree(int nvswitch) const;
  bool bipartite() const;
  // Connected pieces; GPUs cut off from every switch count as pieces of their own.
  int components() const;

  void fail_switch(int nvswitch);
  void fail_link(int gpu, int nvswitch);

  // Bytes/s each way a GPU can send into the fabric: its healthy links x link bandwidth.
  double gpu_bandwidth(int gpu) const;
  // Sum over GPUs of both directions: 72 x 18 x 2 x 50 GB/s = 129.6 TB/s for NVL72.
  double aggregate_bandwidth() const;
  // Maximum flow from GPU a to GPU b through the switches, bytes/s one way.
  double max_flow(int gpu_a, int gpu_b) const;

 private:
  using Graph = boost::adjacency_list<boost::setS, boost::vecS, boost::undirectedS>;
  std::size_t switch_vertex(int nvswitch) const { return static_cast<std::size_t>(gpus_ + nvswitch); }

  int gpus_;
  int switches_;
  double link_bw_;
  Graph graph_;
};

}  // namespace nvlsim
