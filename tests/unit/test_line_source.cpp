// LineSource caps a line's length, so a file without line breaks is an error, not a read into memory.

#include <zlib.h>

#include <array>
#include <catch2/catch.hpp>
#include <fstream>
#include <sstream>
#include <streambuf>
#include <string>

#include "models/input_error.hpp"
#include "nvlsim_process.hpp"
#include "workloads/line_source.hpp"
#include "workloads/swf_reader.hpp"

using nvlsim::InputError;
using nvlsim::LineSource;

namespace {

// A stream of 'x' without end, as a pipe from a runaway program would be.
class EndlessX : public std::streambuf {
 public:
  EndlessX() { chunk_.fill('x'); }
  std::size_t served() const { return served_; }

 protected:
  int_type underflow() override {
    setg(chunk_.data(), chunk_.data(), chunk_.data() + chunk_.size());
    served_ += chunk_.size();
    return 'x';
  }

 private:
  std::array<char, 4096> chunk_;
  std::size_t served_ = 0;
};

std::string error_of(const std::filesystem::path& path) {
  try {
    LineSource source(path);
    while (source.next()) {
    }
  } catch (const InputError& e) {
    return e.what();
  }
  return "no error";
}

}  // namespace

TEST_CASE("a line up to the cap is read whole, its line number counted", "[line_source]") {
  const auto dir = nvlsim::test::scratch_dir("line-source-ok");
  std::ofstream(dir / "t.txt") << "a\n" << std::string(LineSource::kMaxLineBytes, 'x') << "\nlast";
  LineSource source(dir / "t.txt");
  CHECK(source.next() == "a");
  CHECK(source.next()->size() == LineSource::kMaxLineBytes);
  CHECK(source.line() == 2);
  CHECK(source.next() == "last");
  CHECK(source.line() == 3);
  CHECK(!source.next());
}

TEST_CASE("a line longer than the cap names file and line, plain or gzip, with or without newline",
          "[line_source][errors]") {
  const auto dir = nvlsim::test::scratch_dir("line-source-long");
  const std::string text = "; Version: 2.2\n" + std::string(LineSource::kMaxLineBytes + 1, '1');
  std::ofstream(dir / "long.swf") << text;
  std::ofstream(dir / "long-newline.swf") << text << "\n";
  gzFile gz = gzopen((dir / "long.swf.gz").c_str(), "wb");
  REQUIRE(gzwrite(gz, text.data(), static_cast<unsigned>(text.size())) == static_cast<int>(text.size()));
  REQUIRE(gzclose(gz) == Z_OK);
  for (const char* name : {"long.swf", "long-newline.swf", "long.swf.gz"}) {
    INFO(name);
    const std::string expected = (dir / name).string() + ":2: line longer than 1048576 bytes";
    CHECK(error_of(dir / name) == expected);
    CHECK_THROWS_WITH(nvlsim::read_swf(dir / name), expected);
  }
}

TEST_CASE("a trace read from a stream has the same line cap and error as a file", "[line_source][errors]") {
  std::istringstream long_line("; Version: 2.2\n" + std::string(LineSource::kMaxLineBytes + 1, '1') + "\n");
  CHECK_THROWS_WITH(nvlsim::parse_swf(long_line, "t.swf"), "t.swf:2: line longer than 1048576 bytes");
  // A stream without line breaks stops at the cap rather than being read whole.
  EndlessX endless;
  std::istream in(&endless);
  CHECK_THROWS_WITH(nvlsim::parse_swf(in, "pipe"), "pipe:1: line longer than 1048576 bytes");
  CHECK(endless.served() <= LineSource::kMaxLineBytes + 4096);
  // A line of exactly the cap is read.
  std::istringstream at_cap(std::string(LineSource::kMaxLineBytes, ' ') + "\n");
  CHECK(nvlsim::parse_swf(at_cap, "t.swf").lines_read == 1);
}
