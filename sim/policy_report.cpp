#include "sim/policy_report.hpp"

#include <fmt/format.h>

#include <cmath>
#include <stdexcept>

#include "analysis/csv_text.hpp"
#include "analysis/summary_csv.hpp"

namespace nvlsim {

std::string encode_report(const PolicyReport& report) {
  return fmt::format("{},{}\n{}", report.wall_seconds, report.samples, summary_row(report.summary));
}

PolicyReport decode_report(std::string_view bytes) {
  const std::size_t eol = bytes.find('\n');
  if (eol == std::string_view::npos) throw std::runtime_error("no summary row");
  const auto head = split_row(bytes.substr(0, eol));
  const double samples = head.size() == 2 ? parse_number(head[1]) : NAN;
  if (head.size() != 2 || !(samples >= 0) || samples != std::floor(samples))
    throw std::runtime_error(
        fmt::format("'{}' is not the replay's wall time and samples", bytes.substr(0, eol)));
  PolicyReport report;
  report.wall_seconds = parse_number(head[0]);
  report.samples = static_cast<std::size_t>(samples);
  report.summary = parse_summary_row(bytes.substr(eol + 1));
  return report;
}

}  // namespace nvlsim
