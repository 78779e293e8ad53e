// JSON inputs are read with a size cap: a wrong path (a trace, a disk image, a device without end) is an
// error naming the file and the limit, not a read into memory.

#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <string>

#include "models/input_error.hpp"
#include "models/json_file.hpp"
#include "nvlsim_process.hpp"

namespace fs = std::filesystem;
using nvlsim::kMaxJsonBytes;
using nvlsim::read_json_file;

TEST_CASE("a JSON file up to the cap is read, in its keys' order when asked", "[json_file]") {
  const auto dir = nvlsim::test::scratch_dir("json-ok");
  std::ofstream(dir / "a.json") << R"({"b": 1, "a": [2.5]})";
  CHECK(read_json_file(dir / "a.json")["a"][0] == 2.5);
  CHECK(read_json_file<nlohmann::ordered_json>(dir / "a.json").begin().key() == "b");
}

TEST_CASE("a key given twice in one object is an error, the same key in two objects is not",
          "[json_file][errors]") {
  const auto dir = nvlsim::test::scratch_dir("json-keys");
  std::ofstream(dir / "twice.json") << R"({"p": [{"n": 4, "m": {"n": 1}, "n": 8}]})";
  CHECK_THROWS_WITH(read_json_file(dir / "twice.json"),
                    (dir / "twice.json").string() + ": not valid JSON: key \"n\" given twice in one object");
  CHECK_THROWS_AS(read_json_file<nlohmann::ordered_json>(dir / "twice.json"), nvlsim::InputError);
  std::ofstream(dir / "apart.json") << R"({"n": 1, "m": {"n": 2}, "l": [{"n": 3}, {"n": 4}]})";
  CHECK(read_json_file(dir / "apart.json")["l"][1]["n"] == 4);
}

TEST_CASE("a JSON file past the cap is refused by its size before it is read", "[json_file][errors]") {
  const auto dir = nvlsim::test::scratch_dir("json-large");
  std::ofstream(dir / "big.json") << "{}";
  fs::resize_file(dir / "big.json", kMaxJsonBytes + 1);  // sparse: no disk, and never read
  CHECK_THROWS_WITH(
      read_json_file(dir / "big.json"),
      (dir / "big.json").string() + ": 67108865 bytes, more than the 64 MiB a JSON file may have");
  // A file of exactly the cap is read whole.
  std::string at_cap(kMaxJsonBytes, ' ');
  at_cap.replace(0, 7, R"({"a":1})");
  std::ofstream(dir / "big.json", std::ios::trunc) << at_cap;
  CHECK(read_json_file(dir / "big.json")["a"] == 1);
  fs::remove(dir / "big.json");
}

TEST_CASE("a device without end is read up to the cap only", "[json_file][errors]") {
  CHECK_THROWS_WITH(read_json_file("/dev/zero"), "/dev/zero: more than the 64 MiB a JSON file may have");
}

TEST_CASE("a JSON path that is a folder or missing names the file", "[json_file][errors]") {
  const auto dir = nvlsim::test::scratch_dir("json-folder");
  CHECK_THROWS_WITH(read_json_file(dir), dir.string() + ": is a folder, expected a JSON file");
  CHECK_THROWS_WITH(read_json_file(dir / "none.json"), (dir / "none.json").string() + ": cannot open");
}

TEST_CASE("a JSON text holding a NUL byte is refused, not cut short there", "[json_file][errors]") {
  const auto dir = nvlsim::test::scratch_dir("json-nul");
  {
    std::ofstream out(dir / "nul.json", std::ios::binary);
    out << std::string("{\"a\": 1}\0{garbage", 17);
  }
  CHECK_THROWS_WITH(
      read_json_file(dir / "nul.json"),
      (dir / "nul.json").string() + ": not valid JSON: a NUL byte at offset 8 (is this a binary file?)");
}
