// The rail-optimized InfiniBand fat tree, with figures derived by hand.

#include <catch2/catch.hpp>

#include "models/ib_fabric.hpp"

using nvlsim::ClusterShape;
using nvlsim::FabricParams;
using nvlsim::IbFabric;

TEST_CASE("leaves serve one rail of 32 consecutive trays", "[ib_fabric]") {
  const IbFabric f(ClusterShape{2, 18, 4}, FabricParams{});
  // 36 trays: leaves of 32 trays, so 2 leaves per rail, 4 rails.
  CHECK(f.rails() == 4);
  CHECK(f.trays_per_leaf() == 32);
  CHECK(f.leaves() == 8);
  CHECK(f.tiers() == 2);
  // GPU 0 = tray 0 NIC 0 -> rail 0, leaf 0; GPU 73 = tray 18 NIC 1 -> rail 1, first group: leaf 2.
  CHECK(f.leaf_of_gpu(0) == 0);
  CHECK(f.leaf_of_gpu(73) == 2);
  CHECK(f.leaf_of_gpu(128) == 1);  // tray 32, rail 0: second group
  // A leaf crosses the rack boundary: tray 17 (rack 0) and tray 18 (rack 1) share rail 0's first leaf.
  CHECK(f.share_leaf(68, 72));
  CHECK_FALSE(f.share_leaf(0, 1));  // same tray, different rails
  CHECK(f.gpus_of_leaf(1) == std::vector<int>{128, 132, 136, 140});
  // 1:1 -> 32 NICs x 50 GB/s up.
  CHECK(f.leaf_uplink_bw() == 1600e9);
}

TEST_CASE("64 racks need three tiers of 64-port switches", "[ib_fabric]") {
  const IbFabric f(ClusterShape{64, 18, 4}, FabricParams{});
  // 1,152 trays -> 36 leaves per rail, 144 leaves: more than one 64-port spine layer reaches, so pods of
  // 32 leaves, 8 tray groups of each of the 4 rails (5 pods, the last with 4 groups), join at a core.
  CHECK(f.leaves() == 144);
  CHECK(f.tiers() == 3);
  CHECK(f.pods() == 5);
  CHECK(f.leaf_groups_per_pod() == 8);
  CHECK(f.leaves_of_pod(4) ==
        std::vector<int>{32, 33, 34, 35, 68, 69, 70, 71, 104, 105, 106, 107, 140, 141, 142, 143});
  // Every rail of a tray is in the same pod.
  for (int gpu = 4 * 1150; gpu < 4 * 1151; ++gpu) CHECK(f.pod_of_leaf(f.leaf_of_gpu(gpu)) == 4);
  CHECK(f.pod_uplink_bw(0) == 32 * 1600e9);
  CHECK(f.pod_uplink_bw(4) == 16 * 1600e9);
}

TEST_CASE("bisection bandwidth is half the NICs, divided by the oversubscription", "[ib_fabric]") {
  // 64 racks: the first 576 trays fill 18 leaves per rail exactly, so the cut runs through the leaf
  // uplinks: 72 leaves x 32 NICs x 50 GB/s / r.
  FabricParams p;
  CHECK(IbFabric(ClusterShape{64, 18, 4}, p).bisection_bandwidth() == Approx(2304 * 50e9));
  p.ib_oversubscription = 2;
  CHECK(IbFabric(ClusterShape{64, 18, 4}, p).bisection_bandwidth() == Approx(2304 * 50e9 / 2));
}
