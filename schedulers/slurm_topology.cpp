#include "schedulers/slurm_topology.hpp"

#include <fmt/format.h>

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "models/input_error.hpp"

namespace nvlsim {
namespace {

// Real topology files are a few kilobytes; the cap keeps a wrong path (a trace, a disk image) out of memory.
constexpr std::uintmax_t kMaxFileBytes = std::uintmax_t{16} << 20;

std::string read_file(const std::string& path) {
  std::error_code error;
  if (std::filesystem::is_directory(path, error))
    throw InputError(fmt::format("{}: is a folder, expected a topology file", path));
  const std::uintmax_t size = std::filesystem::file_size(path, error);
  if (!error && size > kMaxFileBytes)
    throw InputError(fmt::format("{}: {} bytes, more than the {} MiB a topology file may have", path, size,
                                 kMaxFileBytes >> 20));
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InputError(fmt::format("{}: cannot open the topology file", path));
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

}  // namespace

SlurmTopology read_slurm_topology(const std::string& path, std::span<const std::string> node_names,
                                  int trays) {
  const std::string text = read_file(path);
  const bool yaml = path.ends_with(".yaml") || path.ends_with(".yml");
  SlurmTopology topology = yaml ? parse_topology_yaml(text, path, node_names, trays)
                                : parse_topology_conf(text, path, node_names, trays);
  // A file given with --topology that describes nothing would silently leave the policies without one.
  if (topology.blocks.empty() && topology.switches.empty())
    throw InputError(fmt::format("{}: describes no block and no switch", path));
  return topology;
}

}  // namespace nvlsim
