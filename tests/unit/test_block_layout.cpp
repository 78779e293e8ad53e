#include <catch2/catch.hpp>

#include <cstdint>
#include <random>
#include <vector>

#include "schedulers/block_layout.hpp"

using nvlsim::BlockRange;
using nvlsim::BlockTake;

namespace {

bool same_takes(const std::vector<BlockTake>& a, const std::vector<BlockTake>& b) {
  return std::equal(a.begin(), a.end(), b.begin(), b.end(), [](const BlockTake& x, const BlockTake& y) {
    return x.block == y.block && x.nodes == y.nodes;
  });
}

}  // namespace

TEST_CASE("choose_blocks fills the first group of fitting_groups' order", "[block_layout]") {
  // 12 racks: levels of 1, 2, 4 and 8 base blocks, and a last group of 4 at the 8-block level.
  const auto layout = nvlsim::make_block_layout(nvlsim::PolicyContext{nvlsim::ClusterShape{12, 18, 4}});
  std::mt19937 rng(7);
  for (int round = 0; round < 3000; ++round) {
    std::vector<int> offered(12);
    for (int& n : offered) n = std::uniform_int_distribution<int>(0, 18)(rng);
    // Equal offers decide ties by position, so make them common.
    if (round % 3 == 0)
      for (int& n : offered) n = n / 6 * 6;
    const int nodes = std::uniform_int_distribution<int>(1, 12 * 18 + 4)(rng);
    std::vector<std::uint8_t> used(12, 0);
    std::vector<std::uint8_t> expected_used(12, 0);
    const std::vector<BlockRange> groups = nvlsim::fitting_groups(layout, offered, nodes);
    const std::vector<BlockTake> expected =
        groups.empty() ? std::vector<BlockTake>{}
                       : nvlsim::fill_group(groups.front(), offered, expected_used, nodes);
    REQUIRE(same_takes(nvlsim::choose_blocks(layout, offered, used, nodes), expected));
    REQUIRE(used == expected_used);
  }
}

TEST_CASE("a group of one base block gives the job its nodes there", "[block_layout]") {
  const std::vector<int> offered = {3, 18, 5};
  std::vector<std::uint8_t> used(3, 0);
  CHECK(same_takes(nvlsim::fill_group(BlockRange{2, 3}, offered, used, 4), {{2, 4}}));
  CHECK(used == std::vector<std::uint8_t>{0, 0, 1});
  CHECK(nvlsim::fill_group(BlockRange{1, 2}, offered, used, 0).empty());
}
