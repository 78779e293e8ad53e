// Slurm hostlist expressions; names that compress back into a hostlist must expand to themselves.

#include <stdexcept>

#include "schedulers/hostlist.hpp"
#include "tests/fuzz/fuzz_support.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::vector<std::string> names;
  try {
    names = nvlsim::expand_hostlist(nvlsim::fuzz::as_text(data, size));
  } catch (const std::invalid_argument&) {
    return 0;
  }
  // Only names that need no bracket or comma of their own round-trip; expand never yields others.
  for (const std::string& name : names)
    nvlsim::fuzz::require(!name.empty() && name.find_first_of("[],") == std::string::npos);
  nvlsim::fuzz::require(nvlsim::expand_hostlist(nvlsim::compress_hostlist(names)) == names);
  return 0;
}
