#include "sim/cli/workload_command.hpp"

#include <fmt/format.h>

#include <cstdio>
#include <optional>

#include "models/input_error.hpp"
#include "sim/cli/number_option.hpp"
#include "sim/whole_file.hpp"
#include "workloads/swf_writer.hpp"

namespace nvlsim {

namespace {

void write_file(const std::string& path, std::span<const std::pair<std::string, std::string>> header,
                std::span<const SwfRecord> records) {
  write_whole_file(path, [&](std::ostream& out) { write_swf(out, header, records); });
}

void add_mix(CLI::App& workload, WorkloadMixOptions& o, WorkloadCommands& out) {
  MixParams& p = o.params;
  CLI::App* mix = out.mix = workload.add_subcommand(
      "mix",
      "synthetic AI job mix: Poisson arrivals at offered GPU-hours / capacity = --load, the rate\n"
      "swinging by --diurnal over a day, requested time = run time x --overestimate; the\n"
      "header records every parameter");
  add_number(*mix, "--jobs", p.jobs, 1, 100'000'000, "N", "this many jobs (give --jobs or --days)");
  add_number(*mix, "--days", p.days, 1e-3, 36500.0, "D", "jobs arriving over D days (give --jobs or --days)");
  add_number(*mix, "--gpus", p.gpus, 1, 100'000'000, "G", "GPUs of the machine the load is for (required)");
  add_number(*mix, "--load", p.load, 1e-3, 100.0, "L", "offered GPU-hours / capacity (default: 0.9)");
  add_number(*mix, "--seed", p.seed, std::uint64_t{0}, UINT64_MAX, "S", "seed (default: 1)");
  add_number(*mix, "--diurnal", p.diurnal, 0.0, 1.0, "A",
             "share the arrival rate swings by over a day (default: 0)");
  add_number(*mix, "--overestimate", p.overestimate, 1.0, 1000.0, "F",
             "requested time = run time x F (default: 2)");
  add_number(
      *mix, "--finetune-share", p.finetune_work_share, 0.0, 1.0, "W",
      "expected share of the offered GPU-hours in finetune jobs (8-32 GPUs), the other classes keeping "
      "their relative work (default: the class table's job shares, which give finetune about 30%)");
  add_number(*mix, "--fractional-share", p.fractional_share, 0.0, 1.0, "P",
             "share of inference jobs that ask for part of one GPU, 10%-90% in steps of 10%, written as "
             "SWF field 19 (default: 0)");
  mix->add_option("-o,--output", o.output, "the SWF file to write (required)")->type_name("FILE.swf");
  mix->final_callback([mix, &o] {
    if ((o.params.jobs > 0) == (o.params.days > 0)) fail("workload mix", "give one of --jobs N or --days D");
    if (mix->count("--gpus") == 0) fail("workload mix", "--gpus G is required (the machine the load is for)");
    if (o.output.empty()) fail("workload mix", "-o FILE is required");
  });
}

void add_convert(CLI::App& workload, WorkloadConvertOptions& o, WorkloadCommands& out) {
  CLI::App* convert = out.convert =
      workload.add_subcommand("convert", "GPU-cluster logs to SWF; reports the rows skipped and why");
  convert
      ->add_option_function<std::string>(
          "--from",
          [&o](const std::string& name) {
            o.format = parse_trace_format(name);
            if (!o.format)
              fail("--from", fmt::format("expected alibaba, helios or philly, got \"{}\"", name));
          },
          "the log's format: alibaba, helios or philly (required)")
      ->type_name("FORMAT");
  convert->add_option("input", o.input, "the log to convert (required)")->type_name("IN");
  convert->add_option("-o,--output", o.output, "the SWF file to write (required)")->type_name("OUT.swf");
  convert->final_callback([&o] {
    if (!o.format) fail("workload convert", "--from FORMAT is required");
    if (o.input.empty()) fail("workload convert", "an input file is required");
    if (o.output.empty()) fail("workload convert", "-o FILE is required");
  });
}

}  // namespace

WorkloadCommands add_workload_command(CLI::App& app, WorkloadMixOptions& mix,
                                      WorkloadConvertOptions& convert) {
  CLI::App* workload = app.add_subcommand("workload", "generate or convert traces (docs/workloads.md)");
  WorkloadCommands out{};
  add_mix(*workload, mix, out);
  add_convert(*workload, convert, out);
  workload->final_callback([workload] {
    if (workload->get_subcommands().empty())
      fail("workload", "expected mix or convert (see nvlsim workload --help)");
  });
  return out;
}

int mix_command(const WorkloadMixOptions& o) {
  const MixParams& p = o.params;
  const std::string& output = o.output;
  const GeneratedMix generated = generate_mix(p);
  write_file(output, generated.header, generated.records);
  double work = 0;
  for (const SwfRecord& r : generated.records)
    work += r.run_time * static_cast<double>(r.allocated_processors);
  std::fprintf(stderr, "nvlsim: wrote %zu jobs, %.0f GPU-hours, to %s\n", generated.records.size(),
               work / 3600, output.c_str());
  return 0;
}

int convert_command(const WorkloadConvertOptions& o) {
  const std::string& input = o.input;
  const std::string& output = o.output;
  const Conversion c = convert_trace(*o.format, input);
  write_file(output, c.header, c.records);
  std::string report = fmt::format("nvlsim: {}: {} rows read, {} jobs written to {}, {} skipped\n", input,
                                   c.rows_read, c.records.size(), output, c.skipped.total());
  for (const auto& [reason, count] : c.skipped.entries())
    report += fmt::format("  skipped {}: {}\n", count, reason);
  for (const auto& [how, count] : c.adjusted.entries())
    report += fmt::format("  adjusted {}: {}\n", count, how);
  for (const auto& [what, count] : c.kept.entries()) report += fmt::format("  kept {}: {}\n", count, what);
  std::fputs(report.c_str(), stderr);
  return 0;
}

}  // namespace nvlsim
