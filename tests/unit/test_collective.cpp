// The collective plans against the closed forms, computed here by hand.

#include <catch2/catch.hpp>

#include <vector>

#include "models/collective.hpp"

using namespace nvlsim;

namespace {

const FabricParams kFabric{};  // 900 GB/s NVLink, 50 GB/s NIC per GPU per direction
constexpr double kNvl = 900e9;
constexpr double kIb = 50e9;
constexpr double kS = 1e9;

double time_of(Collective c, std::vector<int> placement, bool sharp = false) {
  return uncontended_time(plan_collective(c, placement, kS, sharp), kFabric);
}

}  // namespace

TEST_CASE("all-reduce follows the hierarchical closed form", "[collective]") {
  CHECK(time_of(Collective::all_reduce, {8}) == Approx(2 * 7.0 / 8 * kS / kNvl));
  CHECK(time_of(Collective::all_reduce, {4, 4}) ==
        Approx(2 * 3.0 / 4 * kS / kNvl + 2 * 0.5 * kS / (4 * kIb)));
  CHECK(time_of(Collective::all_reduce, {31, 1}) ==
        Approx(2 * 30.0 / 31 * kS / kNvl + 2 * 0.5 * kS / (1 * kIb)));
  CHECK(time_of(Collective::all_reduce, {48, 48, 48}) ==
        Approx(2 * 47.0 / 48 * kS / kNvl + 2 * 2.0 / 3 * kS / (48 * kIb)));
  CHECK(time_of(Collective::all_reduce, {1}) == 0);
}

TEST_CASE("all-to-all sends n_i-1 shares over NVLink and n-n_i over InfiniBand at once", "[collective]") {
  CHECK(time_of(Collective::all_to_all, {8}) == Approx(7.0 / 8 * kS / kNvl));
  // 31+1: the lone GPU sends 31/32 of the message over its NIC.
  CHECK(time_of(Collective::all_to_all, {31, 1}) == Approx(31.0 / 32 * kS / kIb));
  CHECK(time_of(Collective::all_to_all, {48, 48, 48}) == Approx(96.0 / 144 * kS / kIb));
}

TEST_CASE("NVLink SHARP makes the in-domain all-reduce cost one message", "[collective]") {
  CHECK(time_of(Collective::all_reduce, {8}, true) == Approx(kS / kNvl));
  CHECK(time_of(Collective::all_reduce, {4, 4}, true) == Approx(kS / kNvl + 2 * 0.5 * kS / (4 * kIb)));
  // SHARP reduces in switches: all-to-all has nothing to reduce.
  CHECK(time_of(Collective::all_to_all, {8}, true) == time_of(Collective::all_to_all, {8}));
}

TEST_CASE("bytes count every GPU's traffic, and the InfiniBand part separately", "[collective]") {
  const auto steps = plan_collective(Collective::all_reduce, std::vector<int>{4, 4}, kS, false);
  // In each domain 4 GPUs send 3/4 S twice; between domains each domain's 4 NICs carry S/4 each.
  CHECK(total_bytes(steps) == Approx(2 * (2 * 4 * 0.75 * kS) + 2 * 4 * (kS / 4)));
  CHECK(cross_domain_bytes(steps) == Approx(2 * kS));
  CHECK(reference_placement(145, 72) == std::vector<int>{49, 48, 48});
  CHECK(reference_placement(8, 72) == std::vector<int>{8});
}
