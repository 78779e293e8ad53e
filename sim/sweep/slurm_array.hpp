#pragma once
// The runs of a sweep as a Slurm job array: DIR/sweep.sbatch, whose task I runs `nvlsim sweep run-one
// DIR I` (task ids are run indexes, so a resumed sweep submits only the runs not finished), submitted with
// sbatch.

#include <filesystem>
#include <span>
#include <string>

namespace nvlsim {

struct SlurmArrayOptions {
  std::filesystem::path program;  // this nvlsim binary, as the nodes see it
  std::string sbatch_options;     // --slurm-opts: more sbatch options, split at blanks
  int max_parallel = 0;           // tasks running at once (--array=...%K); 0: as Slurm allows
  bool wait = false;              // sbatch --wait: return when every task has ended
};

// "0-3,7,9-12": the indexes (ascending) as Slurm's --array takes them.
std::string array_ranges(std::span<const std::size_t> indexes);

// The text of DIR/sweep.sbatch for the runs `indexes` (ascending, not empty).
std::string sbatch_script(const std::filesystem::path& dir, std::span<const std::size_t> indexes,
                          const SlurmArrayOptions& options);

// Writes DIR/sweep.sbatch and submits it; returns the job id. With `wait`, returns once the array has
// ended, whatever its tasks' status. Throws std::runtime_error with sbatch's message when it fails.
std::string submit_array(const std::filesystem::path& dir, std::span<const std::size_t> indexes,
                         const SlurmArrayOptions& options);

}  // namespace nvlsim
