#include "platforms/platform_loader.hpp"

#include <fmt/format.h>
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <functional>
#include <set>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "models/input_error.hpp"
#include "models/read_number.hpp"
#include "platforms/ib_plane.hpp"
#include "platforms/nvlink_plane.hpp"
#include "platforms/platform_file_check.hpp"
#include "platforms/platform_properties.hpp"
#include "platforms/platform_resource_check.hpp"
#include "platforms/simgrid_abort_guard.hpp"
#include "platforms/simgrid_message_hints.hpp"

namespace nvlsim {

namespace {

// GPU and NIC hosts by id, in one pass over the engine's hosts: looking each name up walks every
// zone, which costs seconds on thousands of GPUs.
void collect_hosts(const simgrid::s4u::Engine& engine, const std::string& file, LoadedPlatform& p) {
  const int count = p.spec.shape.gpus();
  p.gpu_hosts.assign(count, nullptr);
  p.nic_hosts.assign(count, nullptr);
  for (auto* host : engine.get_all_hosts()) {
    const std::string_view name = host->get_name();
    auto* table = name.starts_with("gpu-") ? &p.gpu_hosts : name.starts_with("nic-") ? &p.nic_hosts : nullptr;
    if (table == nullptr) continue;
    const auto id = read_number<int>(name.substr(4));
    if (!id || id.value < 0) continue;
    if (id.value >= count)
      throw InputError(
          fmt::format("{}: host {} is beyond the {} GPUs the properties describe", file, name, count));
    (*table)[id.value] = host;
  }
  for (const auto* table : {&p.gpu_hosts, &p.nic_hosts})
    for (int i = 0; i < count; ++i)
      if ((*table)[i] == nullptr)
        throw InputError(fmt::format("{}: host {}{} is missing, but the properties describe {} GPUs", file,
                                     table == &p.gpu_hosts ? "gpu-" : "nic-", i, count));
}

// An nvlsim.* property the reader never asked for is misspelt ("nvlsim.nic_eficiency") or meaningless
// for this platform; either way its value would be silently ignored.
void refuse_unread_properties(const simgrid::s4u::NetZone& root,
                              const std::set<std::string, std::less<>>& asked, const std::string& file) {
  std::vector<std::string> unread;
  for (const auto& [key, value] : *root.get_properties())
    if (key.starts_with("nvlsim.") && !asked.contains(key)) unread.push_back(key);
  if (unread.empty()) return;
  std::sort(unread.begin(), unread.end());
  throw InputError(
      fmt::format("{}: property {}: unknown, or not used by a platform of this format and shape "
                  "(docs/model.md lists the properties)",
                  file, unread.front()));
}

// Builds one plane nvlsim adds to the loaded file, naming the file and the plane in any error.
template <typename Build>
decltype(auto) build_plane(Build build, std::string_view plane, simgrid::s4u::NetZone& root,
                           const PlatformSpec& spec, const std::string& file) {
  try {
    return build(root, spec);
  } catch (const std::exception& e) {
    throw InputError(fmt::format("{}: building the {} plane of a format {} platform: {}", file, plane,
                                 spec.format_version, e.what()));
  }
}

}  // namespace

LoadedPlatform load_platform(simgrid::s4u::Engine& engine, const std::filesystem::path& path) {
  const std::string file = path.string();
  check_platform_file(path);
  const SimGridAbortGuard guard(file);
  try {
    engine.load_platform(file);
  } catch (const std::exception& e) {
    throw InputError(fmt::format("{}: {}", file, with_simgrid_hint(e.what())));
  }
  simgrid::s4u::NetZone& root = *engine.get_netzone_root();
  LoadedPlatform p;
  std::set<std::string, std::less<>> asked;
  p.spec = read_platform_properties(
      [&](const std::string& key) {
        asked.insert(key);
        return root.get_property(key);
      },
      file);
  refuse_unread_properties(root, asked, file);
  if (p.spec.format_version >= 2) p.ib_plane = &build_plane(build_ib_plane, "InfiniBand", root, p.spec, file);
  if (p.spec.format_version >= 3) build_plane(build_nvlink_plane, "NVLink", root, p.spec, file);
  check_platform_resources(engine, file);
  collect_hosts(engine, file, p);
  // Format 1's Floyd zones compute their routes when sealed; sealing here lets routes be queried before the
  // simulation starts, and the per-policy children forked afterwards inherit it instead of redoing it.
  try {
    engine.seal_platform();
  } catch (const std::exception& e) {
    throw InputError(fmt::format("{}: {}", file, e.what()));
  }
  return p;
}

LoadedPlatform load_platform_text(simgrid::s4u::Engine& engine, std::string_view xml) {
  const auto failed = [](std::string_view what) {
    return std::runtime_error(
        fmt::format("cannot {} the platform's in-memory file: {}", what, std::strerror(errno)));
  };
  struct File {
    int fd;
    ~File() { ::close(fd); }
  } const file{::memfd_create("nvlsim-platform.xml", MFD_CLOEXEC)};
  if (file.fd < 0) throw failed("create");
  for (std::size_t written = 0; written < xml.size();) {
    const ssize_t n = ::write(file.fd, xml.data() + written, xml.size() - written);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) throw failed("write");
    written += static_cast<std::size_t>(n);
  }
  return load_platform(engine, fmt::format("/proc/self/fd/{}", file.fd));
}

}  // namespace nvlsim
