#pragma once
// Job classes: how a kind of job communicates, and which trace jobs belong to it.

#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "models/collective.hpp"
#include "workloads/swf_record.hpp"

namespace nvlsim {

struct JobClass {
  std::string name;
  // Share of the trace run time spent communicating in the job's reference placement; the message size
  // per GPU is calibrated per job from it (docs/model.md, "Jobs").
  double comm_fraction = 0.3;
  Collective collective = Collective::all_reduce;
  bool communicates = true;  // false: "collective": "none", the job only computes
  int segment_nodes = 0;     // preferred sub-block segment in trays; 0 = the policy's default
};

// Which SWF field a mapping rule looks at.
enum class SwfField { executable, queue, partition, user };

struct ClassRule {
  SwfField field = SwfField::executable;
  std::int64_t value = 0;
  int job_class = 0;  // index into ClassTable::classes
};

struct ClassTable {
  std::vector<JobClass> classes;
  int default_class = 0;         // for jobs no rule matches
  std::vector<ClassRule> rules;  // first match wins
  bool rules_from_file = false;  // a --classes file gave "map"; a trace's Classes: header is then ignored
  std::string source = "built-in";

  // Index of the class named `name`, or -1.
  int find(std::string_view name) const;
  // Class of one trace record: the first rule that matches, else the default class.
  int classify(const SwfRecord& record) const;
};

// pretrain, finetune, inference and hpc (values and reasons in docs/workloads.md); unmapped jobs are hpc,
// whose values are the job model's global defaults, so an unclassified trace replays as before.
ClassTable builtin_class_table();

// A JSON file {"classes": [...], "default": NAME, "map": [...]} (docs/workloads.md). Throws InputError
// "FILE: classes[1].comm_fraction: must be between 0 and 1" and the like.
ClassTable load_class_table(const std::filesystem::path& path);

// Rules from a generated trace's header "; Classes: pretrain=1 finetune=2" (executable number per class).
// Throws InputError "TRACE: header Classes: ..." for malformed entries or classes the table lacks.
std::vector<ClassRule> rules_from_header(std::string_view header_value, const ClassTable& table,
                                         std::string_view trace_name);

}  // namespace nvlsim
