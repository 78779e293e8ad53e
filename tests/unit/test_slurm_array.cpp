// The job array script of `nvlsim sweep --slurm`: task ids are run indexes, in Slurm's range syntax.

#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "sim/sweep/slurm_array.hpp"

using namespace nvlsim;

TEST_CASE("run indexes become Slurm --array ranges", "[sweep][slurm_array]") {
  CHECK(array_ranges(std::vector<std::size_t>{0, 1, 2, 3, 7, 9, 10, 11, 12}) == "0-3,7,9-12");
  CHECK(array_ranges(std::vector<std::size_t>{5}) == "5");
  CHECK(array_ranges(std::vector<std::size_t>{1, 3}) == "1,3");
}

TEST_CASE("the array script runs one run per task, limited to K at once", "[sweep][slurm_array]") {
  const std::vector<std::size_t> runs = {0, 1, 2, 5};
  const std::string script = sbatch_script("/data/it's here", runs, {"/opt/nvlsim/bin/nvlsim", "", 3, false});
  CHECK(script.starts_with("#!/bin/sh\n"));
  CHECK(script.find("#SBATCH --array=0-2,5%3\n") != std::string::npos);
  CHECK(script.find("#SBATCH --output=/data/it's here/slurm/%A_%a.out\n") != std::string::npos);
  CHECK(script.ends_with(
      "exec '/opt/nvlsim/bin/nvlsim' sweep run-one '/data/it'\\''s here' \"$SLURM_ARRAY_TASK_ID\"\n"));
  CHECK(sbatch_script("/d", runs, {"nvlsim", "", 0, false}).find("#SBATCH --array=0-2,5\n") !=
        std::string::npos);
}
