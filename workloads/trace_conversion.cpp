#include "workloads/trace_conversion.hpp"

#include <algorithm>

namespace nvlsim {

std::optional<TraceFormat> parse_trace_format(std::string_view name) {
  if (name == "alibaba") return TraceFormat::alibaba;
  if (name == "helios") return TraceFormat::helios;
  if (name == "philly") return TraceFormat::philly;
  return std::nullopt;
}

void ReasonCounts::add(const std::string& reason) {
  const auto found = std::ranges::find(entries_, reason, &std::pair<std::string, std::size_t>::first);
  if (found == entries_.end())
    entries_.emplace_back(reason, 1);
  else
    ++found->second;
}

std::size_t ReasonCounts::total() const {
  std::size_t sum = 0;
  for (const auto& [reason, count] : entries_) sum += count;
  return sum;
}

Conversion convert_trace(TraceFormat format, const std::filesystem::path& input) {
  switch (format) {
    case TraceFormat::alibaba:
      return convert_alibaba(input);
    case TraceFormat::helios:
      return convert_helios(input);
    case TraceFormat::philly:
      return convert_philly(input);
  }
  return {};
}

}  // namespace nvlsim
