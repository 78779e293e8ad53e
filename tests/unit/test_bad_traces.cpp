// Bad traces in the bad-input catalogue (bad_input_catalogue.hpp): fields, sizes, duplicates, fractions.

#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "bad_input_catalogue.hpp"

using nvlsim::test::BadInput;

namespace {

std::string swf_line(const std::string& id, const std::string& run, const std::string& procs) {
  return id + " 0 0 " + run + " " + procs + " -1 -1 " + procs + " 200 -1 1 1 1 1 1 -1 -1 -1\n";
}

const std::string kJob = swf_line("1", "100", "8");

// A trace declaring field 19 (gpu_milli) with one job of `procs` processors asking `milli` of a GPU.
std::string fractional_trace(const std::string& procs, const std::string& milli) {
  const std::string line = swf_line("1", "100", procs);
  return "; Field19: gpu_milli\n" + line.substr(0, line.size() - 1) + " " + milli + "\n";
}

}  // namespace

TEST_CASE("bad traces end with their status and message and an output of one run or nothing",
          "[errors][e2e]") {
  nvlsim::test::check_bad_inputs(
      "traces",
      {
          {"a field that is no number",
           {{"t.swf", swf_line("1", "abc", "8")}},
           "--trace t.swf",
           2,
           {"t.swf:1: field 4 (run time): expected a number, got \"abc\""}},
          {"a submit time past 1e15 s",
           {{"t.swf", kJob + "2 1e20 0 100 8 -1 -1 8 200 -1 1 1 1 1 1 -1 -1 -1\n"}},
           "--trace t.swf",
           2,
           {"t.swf:2: field 2 (submit time): must be at most 1e+15 s, got \"1e20\""}},
          {"a run time too long for the rounds of its placement",
           {{"t.swf", swf_line("1", "1e14", "8")}},
           "--trace t.swf",
           2,
           {"job 1 (line 1): a run time of 100000000000000 s is too long to simulate"}},
          {"a line with too few fields",
           {{"t.swf", "1 0 0 100 8\n"}},
           "--trace t.swf",
           2,
           {"t.swf:1: expected 18 fields, got 5"}},
          {"a trace without jobs",
           {{"t.swf", "; Version: 2.2\n"}},
           "--trace t.swf",
           2,
           {"t.swf: no jobs (1 lines read)"}},
          {"a trace whose lines were all skipped",
           {{"t.swf", "x\n"}},
           "--trace t.swf --skip-bad-lines",
           2,
           {"t.swf: no jobs (1 lines read, 1 bad lines skipped)"}},
          {"a job number used twice",
           {{"t.swf", kJob + swf_line("2", "100", "8") + kJob}},
           "--trace t.swf",
           2,
           {"t.swf:3: field 1 (job number): job 1 is already on line 1"}},
          {"a job of 2^63 - 1 processors",
           {{"t.swf", swf_line("1", "100", "9223372036854775807")}},
           "--trace t.swf --procs-per-gpu 1048576",
           2,
           {"t.swf:1: field 5 (allocated processors): 8796093022208 is too many GPUs"}},
          {"a MaxProcs header too large to fit",
           {{"t.swf", "; MaxProcs: 9223372036854775807\n" + kJob}},
           "--trace t.swf --fit",
           2,
           {"t.swf: --fit: 9223372036854775807 processors would need"}},
          {"a trace file that does not exist", {}, "--trace missing.swf", 2, {"missing.swf"}},
          {"a job larger than the platform is rejected, not dropped",
           {{"t.swf", swf_line("1", "100", "1000") + swf_line("2", "100", "8")}},
           "--trace t.swf",
           0,
           {}},
          {"a fractional request beyond one GPU",
           {{"t.swf", fractional_trace("1", "1001")}},
           "--trace t.swf",
           2,
           {"t.swf:2: field 19 (gpu_milli): must be 1 to 1000 (thousandths of one GPU), or -1 for whole "
            "GPUs, "
            "got \"1001\""}},
          {"a fractional request that is no integer",
           {{"t.swf", fractional_trace("1", "0.5")}},
           "--trace t.swf",
           2,
           {"t.swf:2: field 19 (gpu_milli): expected an integer, got \"0.5\""}},
          {"part of a GPU for a job of several",
           {{"t.swf", fractional_trace("8", "500")}},
           "--trace t.swf",
           2,
           {"t.swf:2: field 19 (gpu_milli): part of a GPU needs a job of 1 processor, field 5 (allocated "
            "processors) is 8"}},
          {"a 19th field without its header line",
           {{"t.swf", fractional_trace("1", "500").substr(sizeof("; Field19: gpu_milli\n") - 1)}},
           "--trace t.swf",
           2,
           {"t.swf:1: expected 18 fields, got 19"}},
          {"a field 19 declaration naming another field",
           {{"t.swf", "; Field19: shards\n" + kJob}},
           "--trace t.swf --skip-bad-lines",
           2,
           {"t.swf:1: header Field19: expected gpu_milli (thousandths of one GPU), got \"shards\""}},
          {"a fractional request replays as a whole GPU",
           {{"t.swf", fractional_trace("1", "250")}},
           "--trace t.swf",
           0,
           {}},
      });
}
