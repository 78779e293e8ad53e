#pragma once
// The id of a sweep run: a 64-bit FNV-1a hash, 16 hex digits, of every setting of the run, its policies,
// its seed and the contents of every file it reads, so that a changed setting or input file never reuses
// an old run's results.

#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "sim/sweep/grid_keys.hpp"

namespace nvlsim {

constexpr std::uint64_t kFnvOffsetBasis = 0xcbf29ce484222325ULL;

// FNV-1a 64 of `bytes`, continuing from `hash`.
std::uint64_t fnv1a(std::string_view bytes, std::uint64_t hash = kFnvOffsetBasis);

// Hashes of input files by path, each file read once per sweep however many runs name it.
class FileDigests {
 public:
  // The hash of the file's contents; nullopt when there is no regular file of that name (a shipped
  // name, or a missing file the run will report). Throws InputError when it cannot be read.
  std::optional<std::uint64_t> digest(const std::filesystem::path& file);

 private:
  std::map<std::string, std::optional<std::uint64_t>> known_;
};

// The canonical text hashed: "nvlsim VERSION", then "KEY=VALUE" per setting in key order, "policy=SPEC"
// per policy, "seed=S", and "file KEY=HASH" per file setting with a file.
std::string run_text(const std::map<std::string, std::string>& settings,
                     std::span<const std::string> policies, std::uint64_t seed, const GridKeys& keys,
                     FileDigests& files);

std::string run_id(std::string_view run_text);

}  // namespace nvlsim
