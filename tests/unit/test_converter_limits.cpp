// Converters reject what would overflow or come out as SWF nvlsim rejects, naming file, line and column.

#include <catch2/catch.hpp>
#include <fstream>
#include <string>

#include "models/input_error.hpp"
#include "nvlsim_process.hpp"
#include "workloads/csv_rows.hpp"
#include "workloads/trace_conversion.hpp"

using namespace nvlsim;

namespace {

const std::string kPods =
    "name,cpu_milli,memory_mib,num_gpu,gpu_milli,gpu_spec,qos,pod_phase,creation_time,deletion_time,"
    "scheduled_time\n";
const std::string kHelios = "job_id,user,vc,gpu_num,state,submit_time,start_time,end_time,duration\n";

std::filesystem::path write(const std::string& name, const std::string& text) {
  const auto path = nvlsim::test::scratch_dir("converter-limits-" + name) / name;
  std::ofstream(path, std::ios::binary) << text;
  return path;
}

}  // namespace

TEST_CASE("extreme timestamps are errors, not overflowed waits and run times", "[convert][errors]") {
  const auto pods =
      write("pods.csv", kPods + "p,1,1,1,1000,,LS,Failed,0,9223372036854775807,-9223372036854775807\n");
  CHECK_THROWS_WITH(convert_alibaba(pods),
                    pods.string() +
                        ":2: field 10 (deletion_time): expected a time (YYYY-MM-DD HH:MM:SS, or seconds "
                        "within 1000000000000000), got \"9223372036854775807\"");
  const auto jobs = write("jobs.csv", kHelios + "1,u,v,1,COMPLETED,0,10,,9223372036854775807\n");
  CHECK_THROWS_WITH(convert_helios(jobs), jobs.string() +
                                              ":2: field 9 (duration): must be in [-1000000000000000, "
                                              "1000000000000000], got \"9223372036854775807\"");
}

TEST_CASE("negative GPU counts are errors, not negative processors in the SWF", "[convert][errors]") {
  const auto pods = write("neg.csv", kPods + "p,1,1,-4,1000,,LS,Failed,0,10,5\n");
  CHECK_THROWS_WITH(convert_alibaba(pods),
                    pods.string() + ":2: field 4 (num_gpu): must be in [0, 2147483647], got \"-4\"");
  const auto jobs = write("neg.csv", kHelios + "1,u,v,-1,COMPLETED,0,10,20,\n");
  CHECK_THROWS_WITH(convert_helios(jobs),
                    jobs.string() + ":2: field 4 (gpu_num): must be in [0, 2147483647], got \"-1\"");
}

TEST_CASE("times at the bound convert exactly", "[convert]") {
  const auto jobs = write("far.csv", kHelios + "1,u,v,2,COMPLETED,-1000000000000000,1000000000000000,,5\n");
  const Conversion c = convert_helios(jobs);
  REQUIRE(c.records.size() == 1);
  CHECK(c.records[0].wait_time == 2e15);
}

TEST_CASE("a byte order mark before the header is not part of the first column", "[convert]") {
  const auto pods = write("bom.csv", "\xEF\xBB\xBF" + kPods + "p,1,1,1,1000,,LS,Succeeded,0,10,5\n");
  CHECK(convert_alibaba(pods).records.size() == 1);
}

TEST_CASE("calendar timestamps are real dates, counted from 1970 in UTC", "[convert]") {
  CHECK(nvlsim::parse_timestamp("1970-01-01 00:00:00") == 0);
  CHECK(nvlsim::parse_timestamp("2020-03-01T12:00:00") == 1583064000);
  CHECK(nvlsim::parse_timestamp("2020-02-29 00:00:00") == 1582934400);  // a leap day
  CHECK_FALSE(nvlsim::parse_timestamp("2021-02-29 00:00:00"));          // not one
  CHECK_FALSE(nvlsim::parse_timestamp("2020-04-31 00:00:00"));
  CHECK_FALSE(nvlsim::parse_timestamp("2020-13-01 00:00:00"));
  CHECK(nvlsim::parse_timestamp("1969-12-31 23:59:59") == -1);
}

TEST_CASE("a CSV quote that does not close is an error naming the line", "[convert][errors]") {
  const auto dir = nvlsim::test::scratch_dir("csv-quote");
  std::ofstream(dir / "in.csv") << "a,b\n\"x,1\n";
  nvlsim::CsvRows rows(dir / "in.csv", {"a"});
  CHECK_THROWS_WITH(rows.next(), (dir / "in.csv").string() + ":2: a quoted field does not end");
  CHECK(nvlsim::split_csv_line("\"a,\"\"b\"\"\",c\r") == std::vector<std::string>{"a,\"b\"", "c"});
}
