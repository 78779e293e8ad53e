#include "sim/sweep/run_id.hpp"

#include <fmt/format.h>

#include <fstream>

#include "models/input_error.hpp"

namespace nvlsim {

namespace fs = std::filesystem;

std::uint64_t fnv1a(std::string_view bytes, std::uint64_t hash) {
  constexpr std::uint64_t kPrime = 0x100000001b3ULL;
  for (const char c : bytes) {
    hash ^= static_cast<unsigned char>(c);
    hash *= kPrime;
  }
  return hash;
}

std::optional<std::uint64_t> FileDigests::digest(const fs::path& file) {
  const auto known = known_.find(file.string());
  if (known != known_.end()) return known->second;
  std::optional<std::uint64_t> hash;
  std::error_code ec;
  if (fs::is_regular_file(file, ec)) {
    std::ifstream in(file, std::ios::binary);
    std::string chunk(1 << 16, '\0');
    hash = kFnvOffsetBasis;
    while (in.read(chunk.data(), static_cast<std::streamsize>(chunk.size())) || in.gcount() > 0)
      hash = fnv1a(std::string_view(chunk.data(), static_cast<std::size_t>(in.gcount())), *hash);
    if (in.bad()) throw InputError(fmt::format("{}: cannot read", file.string()));
  }
  known_.emplace(file.string(), hash);
  return hash;
}

std::string run_text(const std::map<std::string, std::string>& settings,
                     std::span<const std::string> policies, std::uint64_t seed, const GridKeys& keys,
                     FileDigests& files) {
  std::string text = fmt::format("nvlsim {}\n", NVLSIM_VERSION);
  for (const auto& [key, value] : settings) text += fmt::format("{}={}\n", key, value);
  for (const std::string& policy : policies) text += fmt::format("policy={}\n", policy);
  text += fmt::format("seed={}\n", seed);
  for (const auto& [key, value] : settings) {
    const GridKey* k = keys.find(key);
    if (k == nullptr || !k->names_file) continue;
    if (const auto hash = files.digest(value)) text += fmt::format("file {}={:016x}\n", key, *hash);
  }
  return text;
}

std::string run_id(std::string_view run_text) {
  return fmt::format("{:016x}", fnv1a(run_text));
}

}  // namespace nvlsim
