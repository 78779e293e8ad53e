#include "schedulers/slurm_version.hpp"

#include <fmt/format.h>

#include "models/input_error.hpp"

namespace nvlsim {

std::string_view slurm_version_name(SlurmVersion version) {
  return version == SlurmVersion::v22_05 ? "22.05" : "24.11";
}

SlurmVersion parse_slurm_version(std::string_view text, const std::string& what) {
  for (SlurmVersion v : {SlurmVersion::v22_05, SlurmVersion::v24_11})
    if (text == slurm_version_name(v)) return v;
  throw InputError(
      fmt::format("{}: '{}' is not a Slurm version nvlsim reproduces (22.05 or 24.11)", what, text));
}

}  // namespace nvlsim
