#pragma once
// Which Slurm release a policy reproduces. Placement rules changed between releases (docs/policies.md,
// "Slurm versions"); a run chooses one with --slurm-version, and run.json records it.

#include <string>
#include <string_view>

namespace nvlsim {

enum class SlurmVersion {
  v22_05,  // Debian 12's Slurm: select/cons_tres, topology/tree; no topology/block
  v24_11,  // Debian 13's Slurm: topology/block as well; what GB200 sites run (23.11 or later)
};

inline constexpr SlurmVersion kDefaultSlurmVersion = SlurmVersion::v24_11;

// "22.05" or "24.11".
std::string_view slurm_version_name(SlurmVersion version);
// The version a text names ("22.05", "24.11"); throws InputError naming `what` (a flag or a file's field)
// and the versions known otherwise.
SlurmVersion parse_slurm_version(std::string_view text, const std::string& what);

}  // namespace nvlsim
