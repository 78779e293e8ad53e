// Failure model files (--failures FILE.json), then the first failures the model draws on one rack: a
// model that passes the checks must give finite, ordered times and repairs.

#include <cmath>

#include "models/failure_model.hpp"
#include "tests/fuzz/fuzz_support.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const auto path = nvlsim::fuzz::input_file(data, size, ".json");
  nvlsim::fuzz::parses([&] {
    const nvlsim::FailureModel model = nvlsim::read_failure_model(path);
    nvlsim::FailureGenerator generator(model, nvlsim::ClusterShape{.domains = 1}, 18, 1);
    double last = 0;
    for (int i = 0; i < 200; ++i) {
      const auto event = generator.next();
      if (!event) break;
      nvlsim::fuzz::require(std::isfinite(event->time) && event->time >= last);
      nvlsim::fuzz::require(std::isfinite(event->duration) && event->duration > 0);
      last = event->time;
    }
  });
  return 0;
}
