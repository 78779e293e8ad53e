#include "sim/workload_command.hpp"

#include <fmt/format.h>

#include <cstdio>
#include <fstream>
#include <optional>

#include "models/input_error.hpp"
#include "sim/cli_args.hpp"
#include "workloads/mix_generator.hpp"
#include "workloads/swf_writer.hpp"
#include "workloads/trace_conversion.hpp"

namespace nvlsim {

namespace {

void write_file(const std::string& path, std::span<const std::pair<std::string, std::string>> header,
                std::span<const SwfRecord> records) {
  std::ofstream out(path);
  if (!out) throw InputError(fmt::format("{}: cannot write", path));
  write_swf(out, header, records);
  if (!out) throw InputError(fmt::format("{}: write failed", path));
}

int mix(Args& a) {
  MixParams p;
  std::string output;
  bool gpus_given = false;
  while (!a.done()) {
    const std::string& flag = a.next();
    if (flag == "--jobs")
      p.jobs = a.number<int>(flag, 1, 100'000'000);
    else if (flag == "--days")
      p.days = a.number<double>(flag, 1e-3, 36500.0);
    else if (flag == "--gpus") {
      p.gpus = a.number<int>(flag, 1, 100'000'000);
      gpus_given = true;
    } else if (flag == "--load")
      p.load = a.number<double>(flag, 1e-3, 100.0);
    else if (flag == "--seed")
      p.seed = a.number<std::uint64_t>(flag, 0, UINT64_MAX);
    else if (flag == "--diurnal")
      p.diurnal = a.number<double>(flag, 0.0, 1.0);
    else if (flag == "--overestimate")
      p.overestimate = a.number<double>(flag, 1.0, 1000.0);
    else if (flag == "-o" || flag == "--output")
      output = a.value(flag);
    else
      fail(flag, "unknown option of `nvlsim workload mix` (see nvlsim --help)");
  }
  if ((p.jobs > 0) == (p.days > 0)) fail("workload mix", "give one of --jobs N or --days D");
  if (!gpus_given) fail("workload mix", "--gpus G is required (the machine the load is for)");
  if (output.empty()) fail("workload mix", "-o FILE is required");
  const GeneratedMix generated = generate_mix(p);
  write_file(output, generated.header, generated.records);
  double work = 0;
  for (const SwfRecord& r : generated.records)
    work += r.run_time * static_cast<double>(r.allocated_processors);
  std::fprintf(stderr, "nvlsim: wrote %zu jobs, %.0f GPU-hours, to %s\n", generated.records.size(),
               work / 3600, output.c_str());
  return 0;
}

int convert(Args& a) {
  std::optional<TraceFormat> format;
  std::string input;
  std::string output;
  while (!a.done()) {
    const std::string& flag = a.next();
    if (flag == "--from") {
      const std::string& name = a.value(flag);
      format = parse_trace_format(name);
      if (!format) fail(flag, fmt::format("expected alibaba, helios or philly, got \"{}\"", name));
    } else if (flag == "-o" || flag == "--output")
      output = a.value(flag);
    else if (!flag.starts_with("-") && input.empty())
      input = flag;
    else
      fail(flag, "unknown option of `nvlsim workload convert` (see nvlsim --help)");
  }
  if (!format) fail("workload convert", "--from FORMAT is required");
  if (input.empty()) fail("workload convert", "an input file is required");
  if (output.empty()) fail("workload convert", "-o FILE is required");
  const Conversion c = convert_trace(*format, input);
  write_file(output, c.header, c.records);
  std::string report = fmt::format("nvlsim: {}: {} rows read, {} jobs written to {}, {} skipped\n", input,
                                   c.rows_read, c.records.size(), output, c.skipped.total());
  for (const auto& [reason, count] : c.skipped.entries())
    report += fmt::format("  skipped {}: {}\n", count, reason);
  for (const auto& [how, count] : c.adjusted.entries())
    report += fmt::format("  adjusted {}: {}\n", count, how);
  std::fputs(report.c_str(), stderr);
  return 0;
}

}  // namespace

int workload_command(std::span<const std::string> args) {
  Args a(args);
  if (a.done()) fail("workload", "expected mix or convert (see nvlsim --help)");
  const std::string& what = a.next();
  if (what == "mix") return mix(a);
  if (what == "convert") return convert(a);
  fail("workload", fmt::format("expected mix or convert, got \"{}\"", what));
}

std::string workload_usage() {
  return R"(
Traces (docs/workloads.md):
  nvlsim workload mix (--jobs N | --days D) --gpus G [--load L] [--seed S] [--diurnal A]
                      [--overestimate F] -o FILE.swf
                       synthetic AI job mix: Poisson arrivals at offered GPU-hours / capacity = L
                       (default 0.9), rate swinging by A over a day (default 0), requested time = run
                       time x F (default 2); the header records every parameter
  nvlsim workload convert --from alibaba|helios|philly IN -o OUT.swf
                       GPU-cluster logs to SWF; reports the rows skipped and why
)";
}

}  // namespace nvlsim
