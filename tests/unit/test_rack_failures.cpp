// A `rack` failure is one physical rack: the whole NVLink domain on NVL72, half of one on NVL36x2.

#include <catch2/catch.hpp>

#include <fstream>
#include <set>

#include "models/failure_model.hpp"
#include "models/failure_replay.hpp"
#include "models/input_error.hpp"
#include "nvlsim_process.hpp"

using namespace nvlsim;

namespace {

// Two domains each way: NVL72 (one rack per domain) and NVL36x2 (two racks of 9 trays per domain).
const ClusterShape kNvl72{.domains = 2};
const ClusterShape kNvl36x2{.domains = 2, .racks_per_domain = 2};
constexpr int kSwitches = 18;

}  // namespace

TEST_CASE("an NVL36x2 rack failure takes 36 GPUs (half a domain) and an NVL72 one its 72", "[failures]") {
  REQUIRE(component_count(Component::rack, kNvl72, kSwitches) == 2);
  REQUIRE(component_count(Component::rack, kNvl36x2, kSwitches) == 4);
  const std::vector<int> whole = gpus_taken_down(Component::rack, 1, kNvl72);
  CHECK(whole.size() == 72);
  CHECK(whole.front() == 72);
  CHECK(whole.back() == 143);

  std::multiset<int> covered;
  for (int rack = 0; rack < 4; ++rack) {
    const std::vector<int> gpus = gpus_taken_down(Component::rack, rack, kNvl36x2);
    INFO("rack " << rack);
    CHECK(gpus.size() == 36);
    // Whole trays of one domain: the rack's 9 compute trays.
    CHECK(gpus.front() % kNvl36x2.gpus_per_tray == 0);
    CHECK(kNvl36x2.domain_of_gpu(gpus.front()) == rack / 2);
    CHECK(kNvl36x2.domain_of_gpu(gpus.back()) == rack / 2);
    covered.insert(gpus.begin(), gpus.end());
  }
  // The four racks split the machine's GPUs, each once.
  CHECK(covered.size() == static_cast<std::size_t>(kNvl36x2.gpus()));
  CHECK(std::set<int>(covered.begin(), covered.end()).size() == covered.size());
  // Rack 3 is the second half of domain 1.
  CHECK(gpus_taken_down(Component::rack, 3, kNvl36x2).front() == 72 + 36);
}

TEST_CASE("replay files and the model number NVL36x2 racks, not domains", "[failures]") {
  const auto path = nvlsim::test::scratch_dir("rack-failures") / "racks.csv";
  std::ofstream(path) << "time,component,id,duration\n10,rack,3,60\n";
  const auto events = read_failure_replay(path, kNvl36x2, kSwitches);
  REQUIRE(events.size() == 1);
  CHECK(events[0].id == 3);
  std::string message;
  try {
    read_failure_replay(path, kNvl72, kSwitches);
  } catch (const InputError& e) {
    message = e.what();
  }
  CHECK(message.find(":2: field 3 (id): expected a rack id from 0 to 1") != std::string::npos);

  // A model of rack failures only draws every rack of the machine, one failure each before any repeats.
  FailureModel racks;
  racks[Component::rack] = {.mtbf_hours = 1000, .mttr_hours = 1e6, .repair = RepairDistribution::fixed};
  FailureGenerator generator(racks, kNvl36x2, kSwitches, 3);
  std::set<int> ids;
  for (int i = 0; i < 4; ++i) ids.insert(generator.next()->id);
  CHECK(ids == std::set<int>{0, 1, 2, 3});
}
