// Reading SWF traces: fields, header entries, unknown values, gzip, exact error messages, skipping.

#include <stdlib.h>  // mkdtemp
#include <zlib.h>

#include <algorithm>
#include <catch2/catch.hpp>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include "models/input_error.hpp"
#include "swf_text.hpp"
#include "workloads/swf_reader.hpp"

namespace fs = std::filesystem;
using nvlsim::InputError;
using nvlsim::parse_swf;
using nvlsim::read_swf;
using nvlsim::SwfReadOptions;
using nvlsim::SwfTrace;

using nvlsim::test::error_of;
using nvlsim::test::parse;

namespace {

const fs::path kData = NVLSIM_TEST_DATA;

// A valid job line; tests that need a bad one replace a single field.
const std::string kJob = "1 0 -1 10 2 -1 -1 2 20 -1 1 -1 -1 -1 -1 -1 -1 -1";

std::string with_field(int number, std::string_view value) {
  std::istringstream in(kJob);
  std::string token;
  std::string line;
  for (int field = 1; in >> token; ++field) {
    if (!line.empty()) line += ' ';
    line += field == number ? std::string(value) : token;
  }
  return line;
}

// Compares as text, so a failing check prints the value.
std::string value_of(const nvlsim::SwfHeader& header, std::string_view key) {
  return header.get(key).value_or("<absent>");
}

std::string read_error_of(const fs::path& path) {
  try {
    read_swf(path);
  } catch (const InputError& error) {
    return error.what();
  }
  return "no error";
}

class TempDir {
 public:
  TempDir() {
    std::string pattern = (fs::temp_directory_path() / "nvlsim-swf-XXXXXX").string();
    REQUIRE(mkdtemp(pattern.data()) != nullptr);
    path_ = pattern;
  }
  ~TempDir() {
    std::error_code ignored;
    fs::remove_all(path_, ignored);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;

  fs::path operator/(std::string_view name) const { return path_ / name; }

 private:
  fs::path path_;
};

void write_plain(const fs::path& path, std::string_view text) {
  std::ofstream out(path, std::ios::binary);
  out << text;
  REQUIRE(out.good());
}

void write_gzip(const fs::path& path, std::string_view text) {
  gzFile file = gzopen(path.c_str(), "wb");
  REQUIRE(file != nullptr);
  REQUIRE(gzwrite(file, text.data(), static_cast<unsigned>(text.size())) == static_cast<int>(text.size()));
  REQUIRE(gzclose(file) == Z_OK);
}

std::string read_bytes(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

}  // namespace

TEST_CASE("every SWF field lands in its own member", "[swf]") {
  const SwfTrace trace = parse("7 100.5 20.25 30.5 4 5.5 6.5 8 9.5 10.5 1 12 13 14 15 16 17 18.5\n");
  REQUIRE(trace.records.size() == 1);
  const nvlsim::SwfRecord& r = trace.records[0];
  CHECK(r.job_number == 7);
  CHECK(r.submit_time == 100.5);
  CHECK(r.wait_time == 20.25);
  CHECK(r.run_time == 30.5);
  CHECK(r.allocated_processors == 4);
  CHECK(r.average_cpu_time == 5.5);
  CHECK(r.used_memory == 6.5);
  CHECK(r.requested_processors == 8);
  CHECK(r.requested_time == 9.5);
  CHECK(r.requested_memory == 10.5);
  CHECK(r.status == 1);
  CHECK(r.user_id == 12);
  CHECK(r.group_id == 13);
  CHECK(r.executable_number == 14);
  CHECK(r.queue_number == 15);
  CHECK(r.partition_number == 16);
  CHECK(r.preceding_job == 17);
  CHECK(r.think_time == 18.5);
  CHECK(trace.path == "trace.swf");
  CHECK(trace.record_lines == std::vector<std::size_t>{1});
  CHECK(trace.skipped.empty());
}

TEST_CASE("a trace may begin with a UTF-8 byte order mark, before a header or a job", "[swf]") {
  CHECK(parse("\xEF\xBB\xBF" + kJob + "\n").records.size() == 1);
  CHECK(parse("\xEF\xBB\xBF; MaxProcs: 8\n" + kJob + "\n").header.get("MaxProcs") == "8");
  // Only at the start of the file.
  CHECK_THROWS_AS(parse(kJob + "\n\xEF\xBB\xBF" + with_field(1, "2") + "\n"), InputError);
}

TEST_CASE("a time past 1e15 s is an error naming its field", "[swf]") {
  CHECK(parse(with_field(4, "1e15") + "\n").records.front().run_time == 1e15);
  CHECK_THROWS_WITH(parse(with_field(2, "1.0000001e15") + "\n"),
                    Catch::Contains(":1: field 2 (submit time): must be at most 1e+15 s"));
  CHECK_THROWS_WITH(parse(with_field(9, "1e300") + "\n"),
                    Catch::Contains(":1: field 9 (requested time): must be at most 1e+15 s"));
}

TEST_CASE("unknown values (-1) in every field but the submit time", "[swf]") {
  const SwfTrace trace = parse("-1 5 -1 -1 -1 -1 -1 -1 -1 -1 -1 -1 -1 -1 -1 -1 -1 -1.0\n");
  REQUIRE(trace.records.size() == 1);
  const nvlsim::SwfRecord& r = trace.records[0];
  CHECK(r.job_number == -1);
  CHECK(r.submit_time == 5);
  CHECK(r.wait_time == -1);
  CHECK(r.run_time == -1);
  CHECK(r.allocated_processors == -1);
  CHECK(r.requested_processors == -1);
  CHECK(r.requested_time == -1);
  CHECK(r.status == -1);
  CHECK(r.preceding_job == -1);
  CHECK(r.think_time == -1);
}

TEST_CASE("numbers as real logs write them", "[swf]") {
  // Zero-padded submit times (CQSim's test file), exponents and leading dots in real-valued fields.
  const SwfTrace trace = parse("0003 0000 1e3 .5 0 -1 -1 0 0 -1 0 -1 -1 -1 -1 -1 -1 0\n");
  REQUIRE(trace.records.size() == 1);
  CHECK(trace.records[0].job_number == 3);
  CHECK(trace.records[0].submit_time == 0);
  CHECK(trace.records[0].wait_time == 1000);
  CHECK(trace.records[0].run_time == 0.5);
  CHECK(trace.records[0].allocated_processors == 0);
}

TEST_CASE("header entries are 'Key: value' comments after a semicolon, keys may be indented", "[swf]") {
  const SwfTrace trace = parse(
      "; Version: 2.2\n"
      "  ;  MaxProcs: 128\n"
      ";\tUnixStartTime: 0\n"
      "; Information: http://a.example/\n"
      ";              http://b.example/\n"
      "; Note: first note   \n"
      ";       continued without a key\n"
      ";\n"
      "; EndTime:   Fri Aug 29 10:55:01 CEST 1997\r\n"
      "; Note: second note\n"
      "; Empty:\n"
      "; Two words: not an entry\n"
      "; Tight:not an entry\n"
      ";: no key\n"
      "; just a remark\n" +
      kJob + "\n; Late: after the jobs\n");
  using Entry = std::pair<std::string, std::string>;
  const std::vector<Entry> expected = {
      {"Version", "2.2"},        {"MaxProcs", "128"},
      {"UnixStartTime", "0"},    {"Information", "http://a.example/"},
      {"Note", "first note"},    {"EndTime", "Fri Aug 29 10:55:01 CEST 1997"},
      {"Note", "second note"},   {"Empty", ""},
      {"Late", "after the jobs"}};
  CHECK(trace.header.entries == expected);
  CHECK(value_of(trace.header, "MaxProcs") == "128");
  CHECK(value_of(trace.header, "Note") == "first note");  // the first of repeated keys
  CHECK(value_of(trace.header, "Empty") == "");
  CHECK_FALSE(trace.header.get("maxprocs").has_value());  // keys are case-sensitive
  CHECK_FALSE(trace.header.get("http").has_value());
  CHECK_FALSE(trace.header.get("Missing").has_value());
  CHECK(trace.records.size() == 1);
  CHECK(trace.record_lines == std::vector<std::size_t>{16});
}

TEST_CASE("blank lines, CRLF line ends and a missing final newline", "[swf]") {
  const std::string text = "; MaxProcs: 64\r\n\r\n   \n\t\n" + with_field(1, "1") + "\r\n\r\n" +
                           with_field(1, "2") + "\r\n" + with_field(1, "3");
  const SwfTrace trace = parse(text);
  REQUIRE(trace.records.size() == 3);
  CHECK(trace.records[0].job_number == 1);
  CHECK(trace.records[1].job_number == 2);
  CHECK(trace.records[2].job_number == 3);
  CHECK(trace.records[2].think_time == -1);
  CHECK(trace.record_lines == std::vector<std::size_t>{5, 7, 8});
  CHECK(trace.lines_read == 8);
  CHECK(value_of(trace.header, "MaxProcs") == "64");
}

TEST_CASE("an empty input has no records", "[swf]") {
  const SwfTrace trace = parse("");
  CHECK(trace.records.empty());
  CHECK(trace.header.entries.empty());
  CHECK(trace.lines_read == 0);
}

TEST_CASE("malformed lines throw InputError naming file, line and field", "[swf][errors]") {
  CHECK_THROWS_AS(parse(with_field(5, "abc")), InputError);

  CHECK(error_of(with_field(5, "abc")) ==
        R"(trace.swf:1: field 5 (allocated processors): expected an integer, got "abc")");
  CHECK(error_of(with_field(1, "12.0")) ==
        R"(trace.swf:1: field 1 (job number): expected an integer, got "12.0")");
  CHECK(error_of(with_field(8, "1e3")) ==
        R"(trace.swf:1: field 8 (requested processors): expected an integer, got "1e3")");
  CHECK(error_of(with_field(12, "+3")) ==
        R"(trace.swf:1: field 12 (user id): expected an integer, got "+3")");
  CHECK(error_of(with_field(4, "1x")) == R"(trace.swf:1: field 4 (run time): expected a number, got "1x")");
  CHECK(error_of(with_field(9, "nan")) ==
        R"(trace.swf:1: field 9 (requested time): expected a number, got "nan")");
  CHECK(error_of(with_field(18, "inf")) ==
        R"(trace.swf:1: field 18 (think time): expected a number, got "inf")");
  CHECK(error_of(with_field(1, "99999999999999999999")) ==
        R"(trace.swf:1: field 1 (job number): out of range, got "99999999999999999999")");
  CHECK(error_of(with_field(3, "1e999")) == R"(trace.swf:1: field 3 (wait time): out of range, got "1e999")");
}

TEST_CASE("values below -1, and negatives other than -1, are errors", "[swf][errors]") {
  CHECK(error_of(with_field(11, "-2")) ==
        R"(trace.swf:1: field 11 (status): must be >= 0, or -1 for unknown, got "-2")");
  CHECK(error_of(with_field(6, "-0.5")) ==
        R"(trace.swf:1: field 6 (average CPU time): must be >= 0, or -1 for unknown, got "-0.5")");
  CHECK(error_of(with_field(17, "-100")) ==
        R"(trace.swf:1: field 17 (preceding job): must be >= 0, or -1 for unknown, got "-100")");
}

TEST_CASE("an unknown submit time is an error: the job cannot be replayed", "[swf][errors]") {
  CHECK(error_of(with_field(2, "-1")) ==
        "trace.swf:1: field 2 (submit time): unknown (-1), but a job cannot be replayed without it");
}

TEST_CASE("a wrong field count names no field", "[swf][errors]") {
  const std::string seventeen = kJob.substr(0, kJob.rfind(' '));
  CHECK(error_of(seventeen) == "trace.swf:1: expected 18 fields, got 17");
  CHECK(error_of(kJob + " 19") == "trace.swf:1: expected 18 fields, got 19");
  CHECK(error_of("1 2 3") == "trace.swf:1: expected 18 fields, got 3");
}

TEST_CASE("error line numbers count comments and blank lines, and a CR is not part of a token",
          "[swf][errors]") {
  const std::string text =
      "; Version: 2.2\r\n\r\n" + kJob + "\r\n" + with_field(18, "x") + "\r\n" + with_field(5, "bad");
  CHECK(error_of(text) == R"(trace.swf:4: field 18 (think time): expected a number, got "x")");
}

TEST_CASE("skipping bad lines records each one with its message", "[swf][skip]") {
  const std::string text = "; MaxProcs: 8\n" + with_field(1, "1") + "\n" + with_field(5, "abc") + "\n\n" +
                           with_field(2, "-1") + "\n" + with_field(1, "2") + "\n1 2 3\n" +
                           with_field(1, "3") + "\n";
  const SwfTrace trace = parse(text, {.skip_bad_lines = true});
  REQUIRE(trace.records.size() == 3);
  CHECK(trace.records[0].job_number == 1);
  CHECK(trace.records[1].job_number == 2);
  CHECK(trace.records[2].job_number == 3);
  CHECK(trace.record_lines == std::vector<std::size_t>{2, 6, 8});
  CHECK(trace.lines_read == 8);
  REQUIRE(trace.skipped.size() == 3);
  CHECK(trace.skipped[0].line == 3);
  CHECK(trace.skipped[0].message ==
        R"(trace.swf:3: field 5 (allocated processors): expected an integer, got "abc")");
  CHECK(trace.skipped[1].line == 5);
  CHECK(trace.skipped[1].message ==
        "trace.swf:5: field 2 (submit time): unknown (-1), but a job cannot be replayed without it");
  CHECK(trace.skipped[2].line == 7);
  CHECK(trace.skipped[2].message == "trace.swf:7: expected 18 fields, got 3");

  // Without skipping, the same text stops at the first bad line with the same message.
  CHECK(error_of(text) == trace.skipped[0].message);
}

TEST_CASE("read_swf reads plain and gzip files alike", "[swf][file]") {
  const TempDir dir;
  const std::string text = "; MaxProcs: 4\r\n" + with_field(1, "1") + "\r\n\n" + with_field(1, "2");
  write_plain(dir / "t.swf", text);
  write_gzip(dir / "t.swf.gz", text);

  for (const char* name : {"t.swf", "t.swf.gz"}) {
    INFO(name);
    const SwfTrace trace = read_swf(dir / name);
    CHECK(trace.path == (dir / name).string());
    CHECK(value_of(trace.header, "MaxProcs") == "4");
    REQUIRE(trace.records.size() == 2);
    CHECK(trace.records[0].job_number == 1);
    CHECK(trace.records[1].job_number == 2);
    CHECK(trace.record_lines == std::vector<std::size_t>{2, 4});
    CHECK(trace.lines_read == 4);
  }
}

TEST_CASE("read_swf handles many lines and lines longer than its buffer", "[swf][file]") {
  const TempDir dir;
  std::string text = "; Note: " + std::string(1'000'000, 'x') + "\n";
  const std::size_t jobs = 40'000;
  for (std::size_t job = 1; job <= jobs; ++job) text += with_field(1, std::to_string(job)) + "\n";
  write_plain(dir / "big.swf", text);
  write_gzip(dir / "big.swf.gz", text);

  for (const char* name : {"big.swf", "big.swf.gz"}) {
    INFO(name);
    const SwfTrace trace = read_swf(dir / name);
    CHECK(value_of(trace.header, "Note").size() == 1'000'000);
    REQUIRE(trace.records.size() == jobs);
    bool in_order = true;
    for (std::size_t i = 0; i < jobs; ++i) {
      in_order = in_order && trace.records[i].job_number == static_cast<std::int64_t>(i + 1);
    }
    CHECK(in_order);
    CHECK(trace.lines_read == jobs + 1);
  }
}

TEST_CASE("read_swf reports files it cannot open, read or decompress", "[swf][file][errors]") {
  const TempDir dir;
  const fs::path missing = dir / "missing.swf";
  CHECK(read_error_of(missing) == missing.string() + ": cannot open: No such file or directory");
  CHECK_THROWS_AS(read_swf(missing), InputError);

  const fs::path folder = dir / "folder.swf";
  fs::create_directory(folder);
  CHECK(read_error_of(folder) == folder.string() + ": cannot read: Is a directory");

  std::string text;
  for (int job = 1; job <= 2000; ++job) text += with_field(1, std::to_string(job)) + "\n";
  write_gzip(dir / "whole.swf.gz", text);
  const std::string gzip = read_bytes(dir / "whole.swf.gz");

  const fs::path truncated = dir / "truncated.swf.gz";
  write_plain(truncated, std::string_view(gzip).substr(0, gzip.size() / 2));
  CHECK(read_error_of(truncated) == truncated.string() + ": cannot decompress: unexpected end of file");

  // The last 8 bytes of a gzip file are the CRC-32 and length of the data.
  std::string bad_crc = gzip;
  bad_crc[bad_crc.size() - 8] ^= 0x5a;
  const fs::path corrupt = dir / "corrupt.swf.gz";
  write_plain(corrupt, bad_crc);
  CHECK(read_error_of(corrupt) == corrupt.string() + ": cannot decompress: incorrect data check");

  std::string bad_length = gzip;  // also a bogus size, which the reader uses to reserve memory
  bad_length.replace(bad_length.size() - 4, 4, "\xff\xff\xff\xff");
  const fs::path long_claim = dir / "long.swf.gz";
  write_plain(long_claim, bad_length);
  CHECK(read_error_of(long_claim) == long_claim.string() + ": cannot decompress: incorrect length check");
}

TEST_CASE("read_swf names the file in line errors", "[swf][file][errors]") {
  const TempDir dir;
  const fs::path path = dir / "bad.swf.gz";
  write_gzip(path, kJob + "\n" + with_field(3, "?") + "\n");
  CHECK(read_error_of(path) == path.string() + R"(:2: field 3 (wait time): expected a number, got "?")");
}
