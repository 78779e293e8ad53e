// The sample traces of tests/data read as their provenance says: counts, header entries, first and last jobs.

#include <algorithm>
#include <catch2/catch.hpp>
#include <filesystem>
#include <string>
#include <string_view>

#include "workloads/swf_reader.hpp"

namespace fs = std::filesystem;
using nvlsim::read_swf;
using nvlsim::SwfTrace;

namespace {

const fs::path kData = NVLSIM_TEST_DATA;

std::string value_of(const nvlsim::SwfHeader& header, std::string_view key) {
  return header.get(key).value_or("<absent>");
}

}  // namespace

TEST_CASE("sample: NASA iPSC/860 (gzip, cleaned PWA log)", "[swf][sample]") {
  const SwfTrace trace = read_swf(kData / "NASA-iPSC-1993-3.1-cln.swf.gz");
  REQUIRE(trace.records.size() == 18'239);
  CHECK(trace.lines_read == 18'271);
  CHECK(trace.skipped.empty());
  CHECK(trace.record_lines.front() == 33);

  const auto count = [&](auto predicate) { return std::ranges::count_if(trace.records, predicate); };
  CHECK(count([](const auto& r) { return r.wait_time == -1; }) == 18'239);
  CHECK(count([](const auto& r) { return r.status == -1; }) == 18'239);
  CHECK(count([](const auto& r) { return r.run_time == 0; }) == 173);
  CHECK(count([](const auto& r) { return r.requested_processors == -1; }) == 18'239);

  // 23 "Key: value" entries; continuation lines (URLs, "user=3 and ...") are not entries.
  CHECK(trace.header.entries.size() == 23);
  CHECK(value_of(trace.header, "MaxProcs") == "128");
  CHECK(value_of(trace.header, "UnixStartTime") == "749458803");
  CHECK(value_of(trace.header, "Queue") == "0  interactive");
  CHECK(value_of(trace.header, "Information") == "http://www.nas.nasa.gov/");

  const nvlsim::SwfRecord& last = trace.records.back();
  CHECK(last.job_number == 42'264);
  CHECK(last.submit_time == 7'948'936);
  CHECK(last.run_time == 86);
  CHECK(last.allocated_processors == 128);
  CHECK(last.user_id == 12);
  CHECK(last.group_id == 2);
}

TEST_CASE("sample: theta_100 (absolute Unix submit times, minimal header)", "[swf][sample]") {
  const SwfTrace trace = read_swf(kData / "theta_100.swf");
  REQUIRE(trace.records.size() == 100);
  CHECK(trace.lines_read == 103);
  using Entry = std::pair<std::string, std::string>;
  CHECK(trace.header.entries ==
        std::vector<Entry>{{"UnixStartTime", "0"}, {"MaxNodes", "4360"}, {"MaxProcs", "4360"}});

  const nvlsim::SwfRecord& first = trace.records.front();
  CHECK(first.job_number == 1);
  CHECK(first.submit_time == 1'641'021'254);
  CHECK(first.wait_time == 52'645);
  CHECK(first.run_time == 10'849);
  CHECK(first.allocated_processors == 128);
  CHECK(first.requested_processors == 128);
  CHECK(first.requested_time == 10'800);
  CHECK(first.status == 0);
  CHECK(first.user_id == -1);
  CHECK(first.think_time == 0);
  CHECK(trace.records.back().submit_time == 1'641'146'649);
}

TEST_CASE("sample: CQSim test file (KTH-SP2 header, no final newline)", "[swf][sample]") {
  const SwfTrace trace = read_swf(kData / "CQSim-test.swf");
  REQUIRE(trace.records.size() == 9);
  CHECK(trace.lines_read == 28);
  CHECK(trace.record_lines.front() == 20);
  CHECK(trace.record_lines.back() == 28);
  CHECK(trace.header.entries.size() == 17);
  CHECK(value_of(trace.header, "Computer") == "IBM SP2");
  CHECK(value_of(trace.header, "Installation") == "Swedish Royal Institute of Technology (KTH)");
  CHECK(value_of(trace.header, "MaxProcs") == "100");
  CHECK(value_of(trace.header, "UnixStartTime") == "843480031");
  CHECK(value_of(trace.header, "EndTime") == "Fri Aug 29 10:55:01 CEST 1997");
  CHECK(value_of(trace.header, "Information") == "http://www.pdc.kth.se/");
  CHECK(trace.records[0].submit_time == 0);
  CHECK(trace.records[6].requested_time == 3000);
  CHECK(trace.records[8].job_number == 9);
  CHECK(trace.records[8].allocated_processors == 10);
}
