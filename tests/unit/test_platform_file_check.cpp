// A platform file is checked before SimGrid opens it: a folder, a device or a file past the size cap is an
// error naming it, where SimGrid would name nothing or read without bound.

#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>

#include "models/input_error.hpp"
#include "nvlsim_process.hpp"
#include "platforms/platform_file_check.hpp"

namespace fs = std::filesystem;
using nvlsim::check_platform_file;

TEST_CASE("a platform file past the size cap is refused without being read", "[platform][errors]") {
  const auto dir = nvlsim::test::scratch_dir("platform-large");
  std::ofstream(dir / "p.xml") << "<platform";
  fs::resize_file(dir / "p.xml", nvlsim::kMaxPlatformBytes + 1);  // sparse: no disk used
  CHECK_THROWS_WITH(
      check_platform_file(dir / "p.xml"),
      (dir / "p.xml").string() + ": 1073741825 bytes, more than the 1024 MiB a platform file may have");
  fs::resize_file(dir / "p.xml", nvlsim::kMaxPlatformBytes);
  CHECK_NOTHROW(check_platform_file(dir / "p.xml"));
}

TEST_CASE("a platform path that is missing, a folder or no regular file names the file",
          "[platform][errors]") {
  const auto dir = nvlsim::test::scratch_dir("platform-paths");
  CHECK_THROWS_WITH(check_platform_file(dir / "none.xml"),
                    (dir / "none.xml").string() + ": cannot open: No such file or directory");
  CHECK_THROWS_WITH(check_platform_file(dir), dir.string() + ": is a folder, expected a platform XML file");
  CHECK_THROWS_WITH(check_platform_file("/dev/null"),
                    "/dev/null: not a regular file, expected a platform XML file");
}
