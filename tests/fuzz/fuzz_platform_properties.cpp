// The nvlsim.* properties of a platform file, given as "key=value" lines (the XML around them is
// SimGrid's to parse); a spec that passes must count GPUs and components inside int.

#include <cmath>
#include <map>
#include <string>

#include "models/failure_event.hpp"
#include "platforms/platform_properties.hpp"
#include "tests/fuzz/fuzz_support.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::map<std::string, std::string> properties;
  const std::string_view text = nvlsim::fuzz::as_text(data, size);
  for (std::size_t start = 0; start < text.size();) {
    const std::size_t end = std::min(text.find('\n', start), text.size());
    const std::string_view line = text.substr(start, end - start);
    const std::size_t equals = line.find('=');
    if (equals != std::string_view::npos)
      properties["nvlsim." + std::string(line.substr(0, equals))] = std::string(line.substr(equals + 1));
    start = end + 1;
  }
  const auto lookup = [&](const std::string& key) -> const char* {
    const auto found = properties.find(key);
    return found == properties.end() ? nullptr : found->second.c_str();
  };
  nvlsim::fuzz::parses([&] {
    const nvlsim::PlatformSpec spec = nvlsim::read_platform_properties(lookup, "fuzz.xml");
    for (nvlsim::Component c : nvlsim::kComponents)
      nvlsim::fuzz::require(nvlsim::component_count(c, spec.shape, spec.fabric.nvlink_links_per_gpu) > 0);
    const auto& f = spec.fabric;
    for (double v : {f.nvlink_link_bw, f.nic_bw, f.nvlink_latency, f.ib_latency, f.ib_oversubscription,
                     f.nvlink_gpu_bw()})
      nvlsim::fuzz::require(std::isfinite(v));
  });
  return 0;
}
