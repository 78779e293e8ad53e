#pragma once
// The InfiniBand scale-out fabric as a graph (Boost.Graph): a rail-optimized fat tree of radix-port
// switches (DOMAIN.md §2). NIC k of every tray belongs to rail k; each leaf switch serves radix/2 NICs
// of one rail (NIC k of radix/2 consecutive trays) and sends up radix/2 x NIC bandwidth / oversubscription.
// Up to radix leaves share one spine layer (two tiers); beyond that, pods join the leaves of every rail
// over a range of trays (a scalable unit: radix/2 leaves, radix/2 / rails per rail) and a core layer joins
// the pods (three tiers), non-blocking above the leaves. A pod is thus a set of whole trays, the same
// grouping Slurm's topology/tree sees as a switch over leaf switches. Each leaf's uplinks, and each pod's,
// are one aggregated edge: ECMP spreads flows over the parallel links, which the flow-level model treats
// as one pipe.

#include <boost/graph/adjacency_list.hpp>

#include "models/cluster_shape.hpp"
#include "models/fabric_params.hpp"

namespace nvlsim {

class IbFabric {
 public:
  IbFabric(const ClusterShape& shape, const FabricParams& fabric);

  int rails() const { return rails_; }
  int trays_per_leaf() const { return trays_per_leaf_; }
  int leaves_per_rail() const { return leaves_per_rail_; }
  int leaves() const { return rails_ * leaves_per_rail_; }
  int tiers() const { return pods_ > 1 ? 3 : 2; }
  int pods() const { return pods_; }
  // Groups of trays_per_leaf trays (one leaf per rail each) in a pod.
  int leaf_groups_per_pod() const { return leaf_groups_per_pod_; }

  // Leaf index = rail * leaves_per_rail + tray / trays_per_leaf.
  int leaf_of_gpu(int gpu) const;
  int pod_of_leaf(int leaf) const { return leaf % leaves_per_rail_ / leaf_groups_per_pod_; }
  // The pod's leaves, rail by rail, ascending.
  std::vector<int> leaves_of_pod(int pod) const;
  bool share_leaf(int gpu_a, int gpu_b) const { return leaf_of_gpu(gpu_a) == leaf_of_gpu(gpu_b); }
  // GPU ids whose NICs hang off the leaf, ascending.
  std::vector<int> gpus_of_leaf(int leaf) const;

  double leaf_uplink_bw() const { return leaf_uplink_bw_; }  // bytes/s each way, all of a leaf's uplinks
  double pod_uplink_bw(int pod) const;                       // bytes/s each way, all of a pod's core links

  // Maximum flow, bytes/s one way, from the NICs of the first half of the trays to those of the
  // second half: the fabric's bisection bandwidth.
  double bisection_bandwidth() const;

 private:
  using Graph = boost::adjacency_list<boost::vecS, boost::vecS, boost::undirectedS, boost::no_property,
                                      boost::property<boost::edge_weight_t, double>>;

  ClusterShape shape_;
  double nic_bw_;
  int rails_;
  int trays_per_leaf_;
  int leaves_per_rail_;
  int leaf_groups_per_pod_;
  int pods_;
  double leaf_uplink_bw_;
  Graph graph_;  // vertices: GPUs' NICs, then leaves, then pods' spine layers, then the core
};

}  // namespace nvlsim
