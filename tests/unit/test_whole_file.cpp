// Single-file outputs (platform, topology, workload) replace a regular file whole, and write through what
// they must not replace: a symbolic link (/dev/stdout is one) or a device.

#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>

#include "nvlsim_process.hpp"
#include "sim/whole_file.hpp"

namespace fs = std::filesystem;
using namespace nvlsim::test;

TEST_CASE("a single-file output writes through a symbolic link and keeps the link", "[outputs]") {
  const auto dir = scratch_dir("whole-file-link");
  const auto target = dir / "target.txt";
  std::ofstream(target) << "old\n";
  const auto link = dir / "link.txt";
  fs::create_symlink(target, link);
  nvlsim::write_whole_file(link, [](std::ostream& out) { out << "new\n"; });
  CHECK(fs::is_symlink(fs::symlink_status(link)));
  CHECK(slurp(target.string()) == "new\n");
  CHECK(!fs::exists(dir / "link.txt.partial"));
}

TEST_CASE("a single-file output replaces a regular file through a partial file", "[outputs]") {
  const auto dir = scratch_dir("whole-file-regular");
  const auto file = dir / "out.txt";
  std::ofstream(file) << "old\n";
  nvlsim::write_whole_file(file, [](std::ostream& out) { out << "new\n"; });
  CHECK(fs::is_regular_file(fs::symlink_status(file)));
  CHECK(slurp(file.string()) == "new\n");
  CHECK(!fs::exists(dir / "out.txt.partial"));
}

TEST_CASE("nvlsim platform -o /dev/stdout prints the platform and leaves /dev/stdout a link",
          "[outputs][e2e]") {
  const auto dir = scratch_dir("whole-file-stdout");
  const auto r = run_nvlsim("platform --racks 1 -o /dev/stdout", dir);
  REQUIRE(r.status == 0);
  CHECK(r.out.find("<platform version=") != std::string::npos);
  CHECK(fs::is_symlink(fs::symlink_status("/dev/stdout")));
}
