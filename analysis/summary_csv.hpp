#pragma once
// summary.csv (columns in docs/output.md). Its column list is the one list of a Summary's fields: a row
// reads back into the Summary it was written from, which is how a policy's child process hands its
// summary to the parent.

#include <ostream>
#include <span>
#include <string>
#include <string_view>

#include "analysis/summary.hpp"

namespace nvlsim {

void write_summary_csv(std::ostream& out, std::span<const Summary> summaries);

// One summary.csv row, without its newline.
std::string summary_row(const Summary& summary);
// The Summary summary_row wrote (numbers read back exactly; an undefined one, written empty, as NaN).
// Throws std::runtime_error for a row of the wrong shape.
Summary parse_summary_row(std::string_view row);

}  // namespace nvlsim
