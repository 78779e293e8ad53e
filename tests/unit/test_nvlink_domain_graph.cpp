#include <catch2/catch.hpp>

#include "models/nvlink_domain_graph.hpp"

using nvlsim::NvlinkDomainGraph;

TEST_CASE("an NVL72 domain is the complete bipartite graph K(18,72)", "[graph]") {
  const NvlinkDomainGraph g(72, 18, 50e9);
  CHECK(g.bipartite());
  CHECK(g.healthy_links() == 72 * 18);  // 1,296 NVLinks
  for (int gpu = 0; gpu < 72; ++gpu) CHECK(g.gpu_degree(gpu) == 18);
  for (int s = 0; s < 18; ++s) CHECK(g.switch_degree(s) == 72);
  CHECK(g.components() == 1);
  CHECK(g.gpu_bandwidth(0) == 900e9);
  // 72 GPUs x 1.8 TB/s both ways = 129.6 TB/s, NVIDIA's "~130 TB/s".
  CHECK(g.aggregate_bandwidth() == Approx(129.6e12));
  // Any two GPUs: 18 disjoint two-hop paths of 50 GB/s.
  CHECK(g.max_flow(0, 71) == Approx(900e9));
}

TEST_CASE("a failed NVSwitch leaves every GPU 17/18 of its bandwidth", "[graph]") {
  NvlinkDomainGraph g(72, 18, 50e9);
  g.fail_switch(5);
  CHECK(g.healthy_links() == 72 * 17);
  for (int gpu = 0; gpu < 72; ++gpu) CHECK(g.gpu_bandwidth(gpu) == Approx(900e9 * 17 / 18));
  CHECK(g.max_flow(3, 40) == Approx(17 * 50e9));
  // The dead chip is a piece of its own; the rest stays one piece.
  CHECK(g.components() == 2);
  CHECK(g.bipartite());
}

TEST_CASE("a failed link costs only its two ends", "[graph]") {
  NvlinkDomainGraph g(72, 18, 50e9);
  g.fail_link(7, 0);
  CHECK(g.gpu_bandwidth(7) == Approx(17 * 50e9));
  CHECK(g.gpu_bandwidth(8) == Approx(18 * 50e9));
  CHECK(g.switch_degree(0) == 71);
  // Flow between GPU 7 and another GPU is capped by GPU 7's 17 links.
  CHECK(g.max_flow(7, 8) == Approx(17 * 50e9));
  CHECK(g.max_flow(8, 9) == Approx(18 * 50e9));
}
