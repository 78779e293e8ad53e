#pragma once
// Some of SimGrid's messages about a platform file name the symptom, not the cause ("Not a valid model!"
// for a zone routing it does not know, "Unexpected character `<' in prolog" for a file without SimGrid's
// DOCTYPE line). nvlsim adds what the user should look at.

#include <string>
#include <string_view>

namespace nvlsim {

// What a known vague message means, or an empty view. Pure and allocation-free: the SIGABRT handler of
// SimGridAbortGuard calls it.
std::string_view simgrid_message_hint(std::string_view message) noexcept;

// The message, followed by " (HINT)" when there is one.
std::string with_simgrid_hint(std::string_view message);

}  // namespace nvlsim
