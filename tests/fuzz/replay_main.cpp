// Replays committed inputs through a harness without libFuzzer, for ctest in every build: each argument
// is a file or a folder of files (missing folders are skipped, so an empty crashers/ needs no placeholder).

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <iterator>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size);

namespace {

void replay(const std::filesystem::path& file) {
  std::ifstream in(file, std::ios::binary);
  const std::vector<char> bytes{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
  std::cout << "replaying " << file.string() << " (" << bytes.size() << " bytes)\n" << std::flush;
  LLVMFuzzerTestOneInput(reinterpret_cast<const std::uint8_t*>(bytes.data()), bytes.size());
}

}  // namespace

int main(int argc, char** argv) {
  std::size_t count = 0;
  for (int i = 1; i < argc; ++i) {
    const std::filesystem::path arg = argv[i];
    std::vector<std::filesystem::path> files;
    if (std::filesystem::is_directory(arg)) {
      for (const auto& entry : std::filesystem::directory_iterator(arg))
        if (entry.is_regular_file()) files.push_back(entry.path());
      std::ranges::sort(files);
    } else if (std::filesystem::exists(arg)) {
      files.push_back(arg);
    }
    for (const auto& file : files) replay(file);
    count += files.size();
  }
  std::cout << count << " inputs replayed\n";
  return 0;
}
