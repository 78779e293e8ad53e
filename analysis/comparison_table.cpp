#include "analysis/comparison_table.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

namespace nvlsim {

namespace {

struct Headline {
  const char* name;
  const char* format;  // of the value
  double (*value)(const Summary&);
};

constexpr Headline kHeadlines[] = {
    {"gpu_util", "{:.3f}", [](const Summary& s) { return s.gpu_utilization; }},
    {"mean_wait_s", "{:.0f}", [](const Summary& s) { return s.mean_waiting_time; }},
    {"bw_util", "{:.3f}", [](const Summary& s) { return s.bw_utilization; }},
    {"fragmentation", "{:.3f}", [](const Summary& s) { return s.fragmentation.fragmentation; }},
    {"stranded_gpu_h", "{:.0f}", [](const Summary& s) { return s.fragmentation.stranded_gpu_hours; }},
    {"idle_cost_usd", "{:.0f}", [](const Summary& s) { return s.idle.idle_cost_usd(); }},
};

}  // namespace

std::string relative_change(double value, double base) {
  if (!std::isfinite(value) || !std::isfinite(base) || base == 0) return "";
  return fmt::format("{:+.1f}%", (value - base) / std::abs(base) * 100);
}

std::string comparison_table(std::span<const Summary> summaries) {
  std::string out = fmt::format("{:<28} {:>7} {:>7} {:>6} {:>8} {:>12} {:>7}\n", "policy", "jobs", "success",
                                "killed", "rejected", "makespan_s", "x_dom");
  for (const auto& s : summaries)
    out +=
        fmt::format("{:<28} {:>7} {:>7} {:>6} {:>8} {:>12.0f} {:>7}\n", s.policy, s.nb_jobs,
                    s.nb_jobs_success, s.nb_jobs_killed, s.nb_jobs_rejected, s.makespan, s.cross_domain_jobs);

  const auto base = std::find_if(summaries.begin(), summaries.end(),
                                 [](const Summary& s) { return s.policy == kBaselinePolicy; });
  out += base == summaries.end() ? "\nheadline figures\n"
                                 : fmt::format("\nheadline figures (change against {})\n", kBaselinePolicy);
  out += fmt::format("{:<28}", "policy");
  for (const auto& h : kHeadlines) out += fmt::format(" {:>20}", h.name);
  out += '\n';
  for (const auto& s : summaries) {
    out += fmt::format("{:<28}", s.policy);
    for (const auto& h : kHeadlines) {
      const double v = h.value(s);
      std::string cell = std::isfinite(v) ? fmt::format(fmt::runtime(h.format), v) : "-";
      if (base != summaries.end() && &s != &*base) {
        const std::string change = relative_change(v, h.value(*base));
        if (!change.empty()) cell += " " + change;
      }
      out += fmt::format(" {:>20}", cell);
    }
    out += '\n';
  }
  return out;
}

}  // namespace nvlsim
