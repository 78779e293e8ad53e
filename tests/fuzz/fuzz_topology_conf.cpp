// Slurm topology.conf, with nodes numbered by appearance and with a fixed node list.

#include "schedulers/slurm_topology.hpp"
#include "tests/fuzz/fuzz_support.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static const std::vector<std::string> nodes = {"n1", "n2", "n3", "n4", "n5", "n6", "n7", "n8"};
  const std::string_view text = nvlsim::fuzz::as_text(data, size);
  nvlsim::fuzz::parses([&] { nvlsim::parse_topology_conf(text, "topology.conf"); });
  nvlsim::fuzz::parses([&] { nvlsim::parse_topology_conf(text, "topology.conf", nodes); });
  return 0;
}
