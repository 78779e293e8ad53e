// NVLink 6's partial operation: a tray with a down GPU leaves its block instead of closing it, on the
// systems the catalogue says have it, and when a platform file asks for it.

#include <catch2/catch.hpp>

#include <map>
#include <string>

#include "models/system_catalog.hpp"
#include "placement_fixtures.hpp"
#include "platforms/platform_properties.hpp"
#include "platforms/platform_spec.hpp"
#include "schedulers/policy_registry.hpp"

using namespace nvlsim;

namespace {

const ClusterShape kTwoRacks{2, 18, 4};

PolicyContext context(bool partial_operation) {
  PolicyContext c{kTwoRacks};
  c.partial_operation = partial_operation;
  return c;
}

// A fresh two-rack machine with GPU 21 (tray 5, rack 0) down.
ClusterState one_gpu_down() {
  ClusterState state(kTwoRacks);
  state.set_down(21, true);
  return state;
}

int stranded(const std::string& spec, const ClusterState& state, bool partial_operation) {
  const int down_trays[] = {5};
  return make_policy(spec, context(partial_operation))->failure_stranded_gpus(state, down_trays);
}

}  // namespace

TEST_CASE("partial operation is NVLink 6's: on every Vera Rubin system, on no Blackwell one", "[systems]") {
  for (const SystemFacts& s : systems()) {
    INFO(s.name);
    CHECK(s.partial_operation.value == s.name.starts_with("vr-"));
    CHECK(system_platform(s, s.racks_per_domain.value).partial_operation == s.partial_operation.value);
  }
}

TEST_CASE("nvlsim.partial_operation: 0 or 1, off when a file does not set it", "[platform]") {
  const std::map<std::string, std::string> properties = {
      {"format_version", "2"},    {"system", "vr-nvl144"},      {"domains", "1"},
      {"trays_per_domain", "18"}, {"gpus_per_tray", "4"},       {"nvlink_links_per_gpu", "36"},
      {"nvlink_link_bw", "5e10"}, {"nvlink_latency", "0"},      {"nic_bw", "2e11"},
      {"ib_latency", "0"},        {"ib_oversubscription", "1"}, {"nvlink_sharp", "0"},
      {"ib_switch_radix", "64"}};
  const char* partial = nullptr;  // nvlsim.partial_operation; nullptr = not in the file
  const auto read = [&] {
    return read_platform_properties(
        [&](const std::string& key) -> const char* {
          if (key == "nvlsim.partial_operation") return partial;
          const auto found = properties.find(key.substr(std::string("nvlsim.").size()));
          return found == properties.end() ? nullptr : found->second.c_str();
        },
        "p.xml");
  };
  // Written before partial operation existed: as it behaved then, whatever the system.
  CHECK_FALSE(read().partial_operation);
  partial = "1";
  CHECK(read().partial_operation);
  partial = "2";
  CHECK_THROWS_WITH(read(), "p.xml: property nvlsim.partial_operation: must be in [0, 1], got 2");
}

TEST_CASE("under partial operation a down tray leaves its block: the rest is still a block", "[failures]") {
  const ClusterState state = one_gpu_down();
  // Without it, block strands rack 0's 71 healthy GPUs; with it only the isolated tray's other 3.
  CHECK(stranded("block", state, false) == 71);
  CHECK(stranded("block", state, true) == 3);
  CHECK(stranded("block:min_block_nodes=16", state, true) == 3);
  // Other policies never needed whole blocks: partial operation changes nothing for them.
  for (const char* spec : {"per-gpu", "tree", "sub-block:segment=1", "sub-block:segment=9"}) {
    INFO(spec);
    CHECK(stranded(spec, state, true) == stranded(spec, state, false));
  }

  // Placement agrees with the count: rack 1 busy, a 16-tray whole-block job fits rack 0's 17 up trays,
  // but not on the isolated tray, and an 18-tray one still does not fit.
  ClusterState other_rack_busy = one_gpu_down();
  other_rack_busy.apply(Allocation{nvlsim::test::ids(72, 144), {}});
  const auto block = make_policy("block", context(true));
  CHECK_FALSE(make_policy("block", context(false))->place(other_rack_busy, {64}).has_value());
  CHECK(block->may_fit(other_rack_busy, {64}));
  const auto placed = block->place(other_rack_busy, {64});
  REQUIRE(placed.has_value());
  CHECK(placed->gpus.size() == 64);
  for (int gpu : placed->gpus) CHECK(kTwoRacks.tray_of_gpu(gpu) != 5);
  CHECK(placed->held_trays.size() == 18);  // --exclusive=topo: the whole block, the isolated tray too
  CHECK_FALSE(block->place(other_rack_busy, {72}).has_value());
  // With 2 trays down and K=17, the 16 idle trays are too few: stranded, as without partial operation.
  ClusterState two_down = one_gpu_down();
  two_down.set_down(30, true);  // tray 7
  const int down_trays[] = {5, 7};
  CHECK(make_policy("block:min_block_nodes=17", context(true))->failure_stranded_gpus(two_down, down_trays) ==
        16 * 4 + 2 * 3);
}
