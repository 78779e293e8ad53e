// Job classes: the built-in table, --classes files, the mapping from SWF fields, and CPU traces' processors
// per GPU.

#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "models/input_error.hpp"
#include "nvlsim_process.hpp"
#include "workloads/job_class.hpp"
#include "workloads/procs_per_gpu.hpp"
#include "workloads/trace_jobs.hpp"

using namespace nvlsim;

namespace {

std::filesystem::path write(const std::string& name, const std::string& text) {
  const auto dir = nvlsim::test::scratch_dir("classes-" + name);
  std::ofstream(dir / name) << text;
  return dir / name;
}

SwfTrace trace_of(const std::string& text) {
  std::istringstream in(text);
  return parse_swf(in, "t.swf");
}

std::vector<std::string> class_names(const std::vector<Job>& jobs, const ClassTable& table) {
  std::vector<std::string> names;
  for (const Job& j : jobs) names.push_back(table.classes[static_cast<std::size_t>(j.job_class)].name);
  return names;
}

// Four jobs: executable 1-3 and 7, queues 1, 2, 2, 5, user 9 on the last.
const std::string kTrace =
    "; Classes: pretrain=1 finetune=2 inference=3\n"
    "1 0 -1 100 8 -1 -1 8 -1 -1 1 1 -1 1 1 -1 -1 -1\n"
    "2 1 -1 100 8 -1 -1 8 -1 -1 1 1 -1 2 2 -1 -1 -1\n"
    "3 2 -1 100 8 -1 -1 8 -1 -1 1 1 -1 3 2 -1 -1 -1\n"
    "4 3 -1 100 8 -1 -1 8 -1 -1 1 9 -1 7 5 -1 -1 -1\n";

}  // namespace

TEST_CASE("the built-in classes: pretrain, finetune, inference and hpc for unmapped jobs", "[classes]") {
  const ClassTable t = builtin_class_table();
  REQUIRE(t.classes.size() == 4);
  CHECK(t.classes[static_cast<std::size_t>(t.default_class)].name == "hpc");
  CHECK(t.classes[static_cast<std::size_t>(t.find("pretrain"))].comm_fraction == 0.3);
  CHECK(t.classes[static_cast<std::size_t>(t.find("inference"))].comm_fraction < 0.1);
  // A generated trace's Classes: header names the classes; other traces' jobs are all hpc.
  CHECK(class_names(jobs_from_swf(trace_of(kTrace), {1, &t}), t) ==
        std::vector<std::string>{"pretrain", "finetune", "inference", "hpc"});
  CHECK(jobs_from_swf(trace_of(kTrace)).front().job_class == 0);
}

TEST_CASE("a --classes file defines classes and maps SWF fields to them, first rule first", "[classes]") {
  const auto file = write("c.json", R"({
    "classes": [{"name": "train", "comm_fraction": 0.4, "collective": "all-to-all", "segment_nodes": 8},
                {"name": "serve", "comm_fraction": 0.02, "collective": "none"}],
    "default": "train",
    "map": [{"field": "user", "value": 9, "class": "serve"},
            {"field": "queue", "value": 2, "class": "serve"}]})");
  const ClassTable t = load_class_table(file);
  REQUIRE(t.classes.size() == 2);
  CHECK(t.classes[0].collective == Collective::all_to_all);
  CHECK(t.classes[0].segment_nodes == 8);
  CHECK_FALSE(t.classes[1].communicates);
  // The file's map replaces the trace's Classes: header.
  CHECK(class_names(jobs_from_swf(trace_of(kTrace), {1, &t}), t) ==
        std::vector<std::string>{"train", "serve", "serve", "serve"});
}

TEST_CASE("a file with only a map keeps the built-in classes", "[classes]") {
  const ClassTable t = load_class_table(
      write("m.json", R"({"map": [{"field": "partition", "value": 3, "class": "inference"}]})"));
  SwfRecord r;
  r.partition_number = 3;
  CHECK(t.classes[static_cast<std::size_t>(t.classify(r))].name == "inference");
  r.partition_number = 4;
  CHECK(t.classify(r) == t.default_class);
}

TEST_CASE("bad --classes files and Classes headers are named", "[classes][errors]") {
  auto file = write("bad1.json", R"({"classes": [{"name": "a", "comm_fraction": 1.5}]})");
  CHECK_THROWS_WITH(load_class_table(file),
                    file.string() + ": classes[0].comm_fraction: must be a number between 0 and 1");
  file = write("bad2.json", R"({"map": [{"field": "queue", "value": 1, "class": "nope"}]})");
  CHECK_THROWS_WITH(load_class_table(file), file.string() + ": map[0].class: no class named \"nope\"");
  file = write("bad3.json", R"({"map": [{"field": "group", "value": 1, "class": "hpc"}]})");
  CHECK_THROWS_WITH(
      load_class_table(file),
      file.string() + ": map[0].field: expected executable, queue, partition or user, got \"group\"");
  file = write("bad4.json", R"({"classes": [{"name": "x", "collective": "ring"}]})");
  CHECK_THROWS_AS(load_class_table(file), InputError);
  file = write("bad5.json", "{");
  CHECK_THROWS_AS(load_class_table(file), InputError);
  // A misspelt key used to leave its field at the default without a word.
  file = write("bad6.json", R"({"classes": [{"name": "a", "comm_fracton": 0.9}]})");
  CHECK_THROWS_WITH(load_class_table(file),
                    file.string() +
                        ": classes[0].comm_fracton: unknown key (expected name, comm_fraction, "
                        "collective, segment_nodes)");
  file = write("bad8.json", R"({"clases": []})");
  CHECK_THROWS_WITH(load_class_table(file),
                    file.string() + ": clases: unknown key (expected classes, default, map)");
  file = write("bad7.json", R"({"map": [{"field": "user", "value": 1, "class": "hpc", "extra": 1}]})");
  CHECK_THROWS_WITH(load_class_table(file),
                    file.string() + ": map[0].extra: unknown key (expected field, value, class)");
  const ClassTable t = builtin_class_table();
  CHECK_THROWS_WITH(
      jobs_from_swf(trace_of("; Classes: training=1\n" + kTrace.substr(kTrace.find('\n') + 1)), {1, &t}),
      "t.swf: header Classes: \"training=1\": no class named \"training\" in built-in");
}

TEST_CASE("processors per GPU: ceil(procs / K) GPUs, and --fit picks K from MaxProcs or the largest job",
          "[classes][fit]") {
  const SwfTrace cpu = trace_of(
      "; MaxProcs: 2004\n"
      "1 0 -1 100 2004 -1 -1 2004 -1 -1 1 1 -1 1 1 -1 -1 -1\n"
      "2 0 -1 100 -1 -1 -1 5 -1 -1 1 1 -1 1 1 -1 -1 -1\n");
  CHECK(fit_procs_per_gpu(cpu, 576) == 4);
  const std::vector<Job> jobs = jobs_from_swf(cpu, {4, nullptr});
  CHECK(jobs[0].gpus == 501);
  CHECK(jobs[1].gpus == 2);
  // A job larger than MaxProcs (uncleaned logs) still fits.
  CHECK(fit_procs_per_gpu(trace_of("; MaxProcs: 100\n1 0 -1 100 1200 -1 -1 -1 -1 -1 1 1 -1 1 1 -1 -1 -1\n"),
                          576) == 3);
  CHECK(fit_procs_per_gpu(trace_of("; MaxProcs: 128\n1 0 -1 100 64 -1 -1 -1 -1 -1 1 1 -1 1 1 -1 -1 -1\n"),
                          576) == 1);
}

TEST_CASE("fitting processor counts near 2^63 is refused without overflowing", "[classes][fit]") {
  // ceil((2^63 - 1) / 576) processors per GPU: more than an int, and past 2^63 if rounded by adding 575.
  CHECK_THROWS_WITH(fit_procs_per_gpu(trace_of("; MaxProcs: 9223372036854775807\n"
                                               "1 0 -1 100 64 -1 -1 -1 -1 -1 1 1 -1 1 1 -1 -1 -1\n"),
                                      576),
                    "t.swf: --fit: 9223372036854775807 processors would need 16012798675095097 per GPU, "
                    "more than 2147483647");
  // 2^31 - 1 per GPU exactly still fits.
  CHECK(fit_procs_per_gpu(trace_of("; MaxProcs: 1236950580672\n"
                                   "1 0 -1 100 64 -1 -1 -1 -1 -1 1 1 -1 1 1 -1 -1 -1\n"),
                          576) == 2147483647);
}
