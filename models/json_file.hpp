#pragma once
// Reading a JSON input file, with errors that name it.

#include <filesystem>
#include <nlohmann/json.hpp>

namespace nvlsim {

// The parsed document. Throws InputError "FILE: cannot open" or "FILE: not valid JSON: ...".
nlohmann::json read_json_file(const std::filesystem::path& path);

}  // namespace nvlsim
