// Failure replay files (--failures FILE.csv) on a two-rack machine.

#include <algorithm>
#include <cmath>

#include "models/failure_replay.hpp"
#include "tests/fuzz/fuzz_support.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const auto path = nvlsim::fuzz::input_file(data, size, ".csv");
  const nvlsim::ClusterShape shape{.domains = 2};
  nvlsim::fuzz::parses([&] {
    const auto events = nvlsim::read_failure_replay(path, shape, 18);
    for (const auto& e : events)
      nvlsim::fuzz::require(std::isfinite(e.time) && e.time >= 0 && std::isfinite(e.duration) &&
                            e.duration > 0 && e.id >= 0 &&
                            e.id < nvlsim::component_count(e.component, shape, 18));
    nvlsim::fuzz::require(std::ranges::is_sorted(events, {}, &nvlsim::FailureEvent::time));
  });
  return 0;
}
