// Philly job log (msr-fiddle/philly-traces cluster_job_log): a JSON list of jobs, each with its attempts
// and the GPUs of every attempt; calendar times, "None" or null when unknown.

#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include "models/input_error.hpp"
#include "models/json_file.hpp"
#include "workloads/conversion_builder.hpp"
#include "workloads/csv_rows.hpp"
#include "workloads/trace_conversion.hpp"

namespace nvlsim {

namespace {

using nlohmann::json;

class JobReader {
 public:
  JobReader(std::string file, std::size_t index) : file_(std::move(file)), index_(index) {}

  [[noreturn]] void fail(std::string_view where, std::string_view what) const {
    throw InputError(fmt::format("{}: [{}].{}: {}", file_, index_, where, what));
  }
  // A time, or nullopt when the key is missing, null or "None".
  std::optional<std::int64_t> time(const json& object, const char* key, const std::string& where) const {
    const auto found = object.find(key);
    if (found == object.end() || found->is_null()) return std::nullopt;
    if (!found->is_string()) fail(where, "expected a time string");
    const std::string text = found->get<std::string>();
    if (text == "None") return std::nullopt;
    const auto t = parse_timestamp(text);
    if (!t) fail(where, fmt::format("expected YYYY-MM-DD HH:MM:SS, got \"{}\"", text));
    return t;
  }
  std::string text(const json& object, const char* key) const {
    const auto found = object.find(key);
    if (found == object.end() || found->is_null()) return {};
    if (!found->is_string()) fail(key, "expected a string");
    return found->get<std::string>();
  }

 private:
  std::string file_;
  std::size_t index_;
};

std::int64_t status_of(std::string_view status) {
  if (status == "Pass") return 1;
  if (status == "Failed") return 0;
  if (status == "Killed") return 5;
  return -1;
}

// GPUs of one attempt: the GPUs listed on all its machines.
std::int64_t attempt_gpus(const json& attempt, const JobReader& reader, const std::string& where) {
  const auto detail = attempt.find("detail");
  if (detail == attempt.end() || detail->is_null()) return 0;
  if (!detail->is_array()) reader.fail(where + ".detail", "expected a list");
  std::int64_t gpus = 0;
  for (std::size_t m = 0; m < detail->size(); ++m) {
    const json& machine = (*detail)[m];
    const std::string at = fmt::format("{}.detail[{}]", where, m);
    if (!machine.is_object()) reader.fail(at, "expected an object");
    const auto list = machine.find("gpus");
    if (list == machine.end() || list->is_null()) continue;
    if (!list->is_array()) reader.fail(at + ".gpus", "expected a list of GPU names");
    gpus += static_cast<std::int64_t>(list->size());
  }
  return gpus;
}

}  // namespace

// A job log is a trace, not configuration: Philly's 117,325 jobs list every GPU of every attempt. 1 GiB
// holds millions of such jobs; the parsed document takes several times that in memory.
constexpr std::uintmax_t kMaxJobLogBytes = std::uintmax_t{1} << 30;

Conversion convert_philly(const std::filesystem::path& input) {
  const std::string file = input.string();
  const json doc = read_json_file(input, kMaxJobLogBytes);
  if (!doc.is_array()) throw InputError(fmt::format("{}: expected a JSON list of jobs", file));
  Conversion out;
  NameNumbers users;
  NameNumbers queues;
  for (std::size_t i = 0; i < doc.size(); ++i) {
    const json& job = doc[i];
    const JobReader reader(file, i);
    ++out.rows_read;
    if (!job.is_object()) reader.fail("", "expected an object");
    const auto submit = reader.time(job, "submitted_time", "submitted_time");
    if (!submit) reader.fail("submitted_time", "missing");
    const auto attempts = job.find("attempts");
    if (attempts == job.end() || !attempts->is_array()) reader.fail("attempts", "expected a list");
    if (attempts->empty()) {
      out.skipped.add("no attempts (never started)");
      continue;
    }
    std::int64_t gpus = 0;
    for (std::size_t a = 0; a < attempts->size(); ++a)
      gpus = std::max(gpus, attempt_gpus((*attempts)[a], reader, fmt::format("attempts[{}]", a)));
    const auto start = reader.time(attempts->front(), "start_time", "attempts[0].start_time");
    const auto end =
        reader.time(attempts->back(), "end_time", fmt::format("attempts[{}].end_time", attempts->size() - 1));
    if (gpus == 0) {
      out.skipped.add("no GPUs in its attempts");
      continue;
    }
    if (!start) {
      out.skipped.add("first attempt has no start_time");
      continue;
    }
    if (!end) {
      out.skipped.add("last attempt has no end_time (running when the log ends)");
      continue;
    }
    if (*start < *submit || *end < *start) {
      out.skipped.add("times out of order (submitted <= start <= end fails)");
      continue;
    }
    // Retries are part of the job: it holds GPUs from its first start to its last end (as the Philly
    // trace's own analysis counts run time); the largest attempt's GPUs are its size.
    if (attempts->size() > 1) out.adjusted.add("several attempts merged into one run");
    SwfRecord r = ran_job(static_cast<std::int64_t>(i + 1), *submit, *start,
                          static_cast<double>(*end - *start), gpus, status_of(reader.text(job, "status")));
    r.user_id = users.number(reader.text(job, "user"));
    r.queue_number = queues.number(reader.text(job, "vc"));
    out.records.push_back(r);
  }
  finish_conversion(out, "Microsoft Philly cluster_job_log", "vc", queues);
  return out;
}

}  // namespace nvlsim
