// Fractional GPU requests in SWF: field 19 (gpu_milli) only after a "; Field19: gpu_milli" header line,
// checked with file, line and field; the writer declares it only when a job asks part of a GPU; jobs keep
// whole GPUs and carry the fraction beside them.

#include <catch2/catch.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "models/input_error.hpp"
#include "swf_text.hpp"
#include "workloads/swf_reader.hpp"
#include "workloads/swf_writer.hpp"
#include "workloads/trace_jobs.hpp"

using namespace nvlsim;

using nvlsim::test::error_of;
using nvlsim::test::parse;

namespace {

const std::string kDeclared = "; Field19: gpu_milli\n";

// A job of `procs` processors (allocated = requested) asking `milli` in field 19.
std::string job(const std::string& id, const std::string& procs, const std::string& milli) {
  return id + " 0 0 100 " + procs + " -1 -1 " + procs + " 200 -1 1 -1 -1 -1 -1 -1 -1 -1 " + milli + "\n";
}

// An 18-field job line of `procs` processors.
std::string plain_job(const std::string& id, const std::string& procs) {
  return id + " 0 0 100 " + procs + " -1 -1 " + procs + " 200 -1 1 -1 -1 -1 -1 -1 -1 -1\n";
}

std::string written(std::span<const SwfRecord> records) {
  std::ostringstream out;
  const std::vector<std::pair<std::string, std::string>> header = {{"Version", "2.2"}};
  write_swf(out, header, records);
  return out.str();
}

}  // namespace

TEST_CASE("a declared field 19 holds thousandths of one GPU, -1 for whole GPUs", "[swf][fraction]") {
  const SwfTrace trace = parse("; Version: 2.2\n" + kDeclared + job("1", "1", "250") + job("2", "8", "-1") +
                               job("3", "1", "1000"));
  REQUIRE(trace.records.size() == 3);
  CHECK(trace.records[0].gpu_milli == 250);
  CHECK(trace.records[1].gpu_milli == -1);
  CHECK(trace.records[2].gpu_milli == 1000);
  CHECK(trace.header.get("Field19") == "gpu_milli");
  // Everything else reads as in plain SWF.
  CHECK(trace.records[0].allocated_processors == 1);
  CHECK(trace.records[1].requested_processors == 8);
  CHECK(trace.record_lines == std::vector<std::size_t>{3, 4, 5});
}

TEST_CASE("plain SWF is read as before: no field 19, every job whole", "[swf][fraction]") {
  const SwfTrace trace = parse("; Version: 2.2\n" + plain_job("1", "1"));
  REQUIRE(trace.records.size() == 1);
  CHECK(trace.records[0].gpu_milli == -1);
  // A 19th field without the declaration is the error it always was.
  CHECK(error_of(job("1", "1", "250")) == "trace.swf:1: expected 18 fields, got 19");
  // A declared trace wants 19 on every job line.
  CHECK(error_of(kDeclared + plain_job("1", "1")) == "trace.swf:2: expected 19 fields, got 18");
}

TEST_CASE("field 19 out of its range or not an integer names file, line and field",
          "[swf][fraction][errors]") {
  const std::string range = "must be 1 to 1000 (thousandths of one GPU), or -1 for whole GPUs, got ";
  CHECK(error_of(kDeclared + job("1", "1", "0")) == "trace.swf:2: field 19 (gpu_milli): " + range + "\"0\"");
  CHECK(error_of(kDeclared + job("1", "1", "1001")) ==
        "trace.swf:2: field 19 (gpu_milli): " + range + "\"1001\"");
  CHECK(error_of(kDeclared + job("1", "1", "-2")) ==
        "trace.swf:2: field 19 (gpu_milli): " + range + "\"-2\"");
  CHECK(error_of(kDeclared + job("1", "1", "99999999999999999999")) ==
        "trace.swf:2: field 19 (gpu_milli): " + range + "\"99999999999999999999\"");
  for (const std::string bad : {"0.5", "500.0", "nan", "inf", "1e3", "x", "+5"})
    CHECK(error_of(kDeclared + job("1", "1", bad)) ==
          "trace.swf:2: field 19 (gpu_milli): expected an integer, got \"" + bad + "\"");
}

TEST_CASE("part of a GPU needs a job of one processor", "[swf][fraction][errors]") {
  CHECK(error_of(kDeclared + job("1", "4", "500")) ==
        "trace.swf:2: field 19 (gpu_milli): part of a GPU needs a job of 1 processor, field 5 (allocated "
        "processors) is 4");
  CHECK(error_of(kDeclared + job("1", "2", "1000")) ==
        "trace.swf:2: field 19 (gpu_milli): part of a GPU needs a job of 1 processor, field 5 (allocated "
        "processors) is 2");
  // Allocated unknown: the requested count is the job's, as jobs_from_swf counts GPUs.
  CHECK(error_of(kDeclared + "1 0 0 100 -1 -1 -1 -1 200 -1 1 -1 -1 -1 -1 -1 -1 -1 500\n") ==
        "trace.swf:2: field 19 (gpu_milli): part of a GPU needs a job of 1 processor, field 8 (requested "
        "processors) is -1");
  CHECK(parse(kDeclared + "1 0 0 100 -1 -1 -1 1 200 -1 1 -1 -1 -1 -1 -1 -1 -1 500\n").records.size() == 1);
}

TEST_CASE("a wrong declaration stops the read, even when skipping bad lines", "[swf][fraction][errors]") {
  CHECK(error_of("; Field19: shards\n" + plain_job("1", "1")) ==
        "trace.swf:1: header Field19: expected gpu_milli (thousandths of one GPU), got \"shards\"");
  CHECK(error_of(kDeclared + kDeclared + job("1", "1", "500")) ==
        "trace.swf:2: header Field19: already declared on line 1");
  CHECK(error_of("; Version: 2.2\n" + plain_job("1", "1") + kDeclared + job("2", "1", "500")) ==
        "trace.swf:3: header Field19: must come before the first job line (line 2)");
  std::istringstream late(plain_job("1", "1") + kDeclared);
  CHECK_THROWS_AS(parse_swf(late, "trace.swf", {.skip_bad_lines = true}), InputError);
}

TEST_CASE("skipping bad lines skips a bad field 19 like any other field", "[swf][fraction][skip]") {
  const SwfTrace trace = parse(kDeclared + job("1", "1", "0") + job("2", "1", "300") + job("3", "2", "300"),
                               {.skip_bad_lines = true});
  REQUIRE(trace.records.size() == 1);
  CHECK(trace.records[0].job_number == 2);
  REQUIRE(trace.skipped.size() == 2);
  CHECK(trace.skipped[0].line == 2);
  CHECK(trace.skipped[1].line == 4);
}

TEST_CASE("the writer declares field 19 only when a job asks part of a GPU, and reading back is exact",
          "[swf][fraction]") {
  SwfRecord whole;
  whole.job_number = 1;
  whole.submit_time = 0;
  whole.allocated_processors = whole.requested_processors = 4;
  SwfRecord part = whole;
  part.job_number = 2;
  part.submit_time = 10.5;
  part.allocated_processors = part.requested_processors = 1;
  part.gpu_milli = 470;

  const std::vector<SwfRecord> plain = {whole};
  const std::string plain_text = written(plain);
  CHECK(plain_text == "; Version: 2.2\n1 0 -1 -1 4 -1 -1 4 -1 -1 -1 -1 -1 -1 -1 -1 -1 -1\n");

  const std::vector<SwfRecord> mixed = {whole, part};
  const std::string text = written(mixed);
  CHECK(text ==
        "; Version: 2.2\n; Field19: gpu_milli\n1 0 -1 -1 4 -1 -1 4 -1 -1 -1 -1 -1 -1 -1 -1 -1 -1 -1\n"
        "2 10.5 -1 -1 1 -1 -1 1 -1 -1 -1 -1 -1 -1 -1 -1 -1 -1 470\n");
  const SwfTrace back = parse(text);
  REQUIRE(back.records.size() == 2);
  CHECK(back.records[0].gpu_milli == -1);
  CHECK(back.records[1].gpu_milli == 470);
  CHECK(back.records[1].submit_time == 10.5);
  CHECK(written(back.records) == text);
}

TEST_CASE("jobs keep their whole GPUs and carry the fraction, 1000 and -1 both whole", "[swf][fraction]") {
  const SwfTrace trace = parse(kDeclared + job("1", "1", "100") + job("2", "1", "1000") +
                               job("3", "1", "-1") + job("4", "8", "-1"));
  const std::vector<Job> jobs = jobs_from_swf(trace);
  REQUIRE(jobs.size() == 4);
  CHECK(jobs[0].gpus == 1);
  CHECK(jobs[0].gpu_milli == 100);
  CHECK(jobs[1].gpus == 1);
  CHECK(jobs[1].gpu_milli == 0);
  CHECK(jobs[2].gpu_milli == 0);
  CHECK(jobs[3].gpus == 8);
  CHECK(jobs[3].gpu_milli == 0);
  // A CPU trace's one-processor job is one GPU at any --procs-per-gpu, so its fraction still applies.
  const std::vector<Job> cpu = jobs_from_swf(trace, {.procs_per_gpu = 4});
  CHECK(cpu[0].gpus == 1);
  CHECK(cpu[0].gpu_milli == 100);
}
