#include "platforms/platform_file_check.hpp"

#include <fmt/format.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <system_error>

#include "models/input_error.hpp"

namespace nvlsim {

void check_platform_file(const std::filesystem::path& path) {
  namespace fs = std::filesystem;
  const std::string file = path.string();
  std::error_code error;
  const fs::file_status status = fs::status(path, error);
  if (status.type() == fs::file_type::not_found || status.type() == fs::file_type::none)
    throw InputError(fmt::format("{}: cannot open: {}", file, error.message()));
  if (fs::is_directory(status))
    throw InputError(fmt::format("{}: is a folder, expected a platform XML file", file));
  if (!fs::is_regular_file(status))
    throw InputError(fmt::format("{}: not a regular file, expected a platform XML file", file));
  if (!std::ifstream(path)) throw InputError(fmt::format("{}: cannot open: {}", file, std::strerror(errno)));
  const std::uintmax_t size = fs::file_size(path, error);
  if (!error && size > kMaxPlatformBytes)
    throw InputError(fmt::format("{}: {} bytes, more than the {} MiB a platform file may have", file, size,
                                 kMaxPlatformBytes >> 20));
}

}  // namespace nvlsim
