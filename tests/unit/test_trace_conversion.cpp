// Converters from GPU-cluster logs to SWF: small files in each documented format round-trip exactly
// (convert, write SWF, read back), and the shipped Alibaba sample converts with the README's pod count and
// keeps its GPU-sharing pods' fractions.

#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "models/input_error.hpp"
#include "nvlsim_process.hpp"
#include "workloads/swf_reader.hpp"
#include "workloads/swf_writer.hpp"
#include "workloads/trace_conversion.hpp"

namespace fs = std::filesystem;
using namespace nvlsim;
using nvlsim::test::scratch_dir;

namespace {

fs::path write(const fs::path& dir, const std::string& name, const std::string& text) {
  std::ofstream(dir / name) << text;
  return dir / name;
}

// Writes the conversion as SWF and reads it back, as a user's next run would.
SwfTrace round_trip(const Conversion& c) {
  std::stringstream text;
  write_swf(text, c.header, c.records);
  return parse_swf(text, "converted.swf");
}

struct Expected {
  std::int64_t job;
  double submit, wait, run;
  std::int64_t gpus, status, user, queue;
};

void check_records(const SwfTrace& trace, const std::vector<Expected>& expected) {
  REQUIRE(trace.records.size() == expected.size());
  for (std::size_t i = 0; i < expected.size(); ++i) {
    const SwfRecord& r = trace.records[i];
    const Expected& e = expected[i];
    INFO("record " << i);
    CHECK(r.job_number == e.job);
    CHECK(r.submit_time == e.submit);
    CHECK(r.wait_time == e.wait);
    CHECK(r.run_time == e.run);
    CHECK(r.allocated_processors == e.gpus);
    CHECK(r.requested_processors == e.gpus);
    CHECK(r.status == e.status);
    CHECK(r.user_id == e.user);
    CHECK(r.queue_number == e.queue);
  }
}

}  // namespace

TEST_CASE("an Alibaba v2023 pod list round-trips, fractional GPUs kept and CPU pods skipped", "[convert]") {
  const auto dir = scratch_dir("convert-alibaba");
  // Columns as in alibaba/clusterdata cluster-trace-gpu-v2023/README.md.
  const auto file =
      write(dir, "pods.csv",
            "name,cpu_milli,memory_mib,num_gpu,gpu_milli,gpu_spec,qos,pod_phase,creation_time,"
            "deletion_time,scheduled_time\n"
            "openb-pod-0017,88000,327680,8,1000,,Burstable,Succeeded,9437497,10769854,9437497\n"
            "openb-pod-0022,4000,15258,1,220,,BE,Running,9679175,9973826,9679175\n"
            "openb-pod-0035,16000,32768,1,1000,V100M16|V100M32,LS,Failed,9967058,9968575,9967063\n"
            "openb-pod-0040,4000,8192,0,0,,BE,Succeeded,9967000,9968000,9967001\n"
            "openb-pod-0041,4000,8192,2,1000,,LS,Pending,9967100,9968000,\n");
  const Conversion c = convert_alibaba(file);
  CHECK(c.rows_read == 5);
  CHECK(c.skipped.entries() ==
        std::vector<std::pair<std::string, std::size_t>>{{"requests no GPU (CPU-only pod)", 1},
                                                         {"never scheduled (no scheduled_time)", 1}});
  CHECK(c.adjusted.total() == 0);
  CHECK(c.kept.entries() == std::vector<std::pair<std::string, std::size_t>>{
                                {"fractional GPU (gpu_milli < 1000) in field 19", 1}});
  const SwfTrace t = round_trip(c);
  CHECK(t.header.get("UnixStartTime") == "9437497");
  CHECK(t.header.get("Queues") == "Burstable=1 BE=2 LS=3");
  CHECK(t.header.get("Kept") == "1 (fractional GPU (gpu_milli < 1000) in field 19)");
  CHECK(t.header.get("Field19") == "gpu_milli");
  check_records(t, {{1, 0, 0, 10769854 - 9437497, 8, 1, -1, 1},
                    {2, 9679175 - 9437497, 0, 9973826 - 9679175, 1, -1, -1, 2},
                    {3, 9967058 - 9437497, 5, 9968575 - 9967063, 1, 0, -1, 3}});
  CHECK(t.records[0].gpu_milli == -1);
  CHECK(t.records[1].gpu_milli == 220);
  CHECK(t.records[2].gpu_milli == -1);  // 1000: a whole GPU
}

TEST_CASE("Alibaba gpu_milli outside the one-GPU fraction is whole GPUs, counted, and out of range an error",
          "[convert]") {
  const auto dir = scratch_dir("convert-alibaba-milli");
  const std::string head =
      "name,cpu_milli,memory_mib,num_gpu,gpu_milli,gpu_spec,qos,pod_phase,creation_time,deletion_time,"
      "scheduled_time\n";
  const auto file = write(dir, "pods.csv",
                          head + "a,1,1,2,500,,LS,Succeeded,0,10,5\n" + "b,1,1,1,0,,LS,Succeeded,0,10,5\n" +
                              "c,1,1,1,,,LS,Succeeded,0,10,5\n" + "d,1,1,1,50,,LS,Succeeded,0,10,5\n");
  const Conversion c = convert_alibaba(file);
  CHECK(c.adjusted.entries() == std::vector<std::pair<std::string, std::size_t>>{
                                    {"gpu_milli < 1000 on a pod of several GPUs taken as whole GPUs", 1},
                                    {"gpu_milli 0 on a GPU pod taken as whole GPUs", 1}});
  REQUIRE(c.records.size() == 4);
  CHECK(c.records[0].gpu_milli == -1);
  CHECK(c.records[0].allocated_processors == 2);
  CHECK(c.records[1].gpu_milli == -1);
  CHECK(c.records[2].gpu_milli == -1);  // empty: whole, as the trace's multi-GPU pods are
  CHECK(c.records[3].gpu_milli == 50);
  const auto over = write(dir, "over.csv", head + "a,1,1,1,1001,,LS,Succeeded,0,10,5\n");
  CHECK_THROWS_WITH(convert_alibaba(over),
                    over.string() + ":2: field 5 (gpu_milli): must be in [0, 1000], got \"1001\"");
}

TEST_CASE("the shipped Alibaba sample converts all 8152 pods its README lists", "[convert]") {
  const Conversion c =
      convert_alibaba(nvlsim::test::data_file("alibaba-gpu-v2023/openb_pod_list_default.csv"));
  CHECK(c.rows_read == 8152);
  CHECK(c.records.size() + c.skipped.total() == 8152);
  CHECK(c.skipped.entries() ==
        std::vector<std::pair<std::string, std::size_t>>{{"requests no GPU (CPU-only pod)", 1088},
                                                         {"never scheduled (no scheduled_time)", 861}});
  CHECK(c.records.size() == 6203);
  CHECK(c.adjusted.total() == 0);
  CHECK(c.kept.entries() == std::vector<std::pair<std::string, std::size_t>>{
                                {"fractional GPU (gpu_milli < 1000) in field 19", 2573}});
  // Whole GPUs as before (a fractional pod holds one); the fractions add up to 1486.93 GPUs, from 0.05 to
  // 0.81 of one (counted with pandas from the CSV).
  std::int64_t gpus = 0;
  std::int64_t fractional = 0;
  std::int64_t milli = 0;
  for (const SwfRecord& r : c.records) {
    gpus += r.allocated_processors;
    if (r.gpu_milli == -1) continue;
    ++fractional;
    milli += r.gpu_milli;
    CHECK(r.allocated_processors == 1);
    CHECK(r.gpu_milli >= 50);
    CHECK(r.gpu_milli <= 810);
  }
  CHECK(gpus == 6571);
  CHECK(fractional == 2573);
  CHECK(milli == 1'486'930);
  // The SWF carries them to the next run.
  const SwfTrace t = round_trip(c);
  std::int64_t read_back = 0;
  for (const SwfRecord& r : t.records)
    if (r.gpu_milli != -1) read_back += r.gpu_milli;
  CHECK(read_back == 1'486'930);
}

TEST_CASE("a Helios cluster_log.csv round-trips, CPU and unstarted jobs skipped", "[convert]") {
  const auto dir = scratch_dir("convert-helios");
  // Columns as in the Helios trace's README (S-Lab-System-Group/HeliosData): calendar times, duration in s.
  const auto file =
      write(dir, "cluster_log.csv",
            "job_id,user,vc,gpu_num,cpu_num,node_num,state,submit_time,start_time,end_time,duration,"
            "queue\n"
            "a1,uA,vc1,8,64,1,COMPLETED,2020-04-01 00:00:00,2020-04-01 00:00:30,2020-04-01 01:00:30,"
            "3600,30\n"
            "a2,uB,vc2,0,4,1,COMPLETED,2020-04-01 00:01:00,2020-04-01 00:01:00,2020-04-01 00:02:00,60,0\n"
            "a3,uA,vc2,16,128,2,CANCELLED,2020-04-01 00:02:00,2020-04-01 00:12:00,2020-04-02 00:12:00,"
            "86400,600\n"
            "a4,uC,vc1,4,8,1,CANCELLED,2020-04-01 00:03:00,,,0,0\n"
            "a5,uC,vc1,1,8,1,FAILED,2020-04-01 00:04:00,2020-04-01 00:04:00,2020-04-01 00:04:10,10,0\n");
  const Conversion c = convert_helios(file);
  CHECK(c.rows_read == 5);
  CHECK(c.skipped.entries() == std::vector<std::pair<std::string, std::size_t>>{
                                   {"requests no GPU (CPU job)", 1}, {"never started (no start_time)", 1}});
  const SwfTrace t = round_trip(c);
  CHECK(t.header.get("UnixStartTime") == "1585699200");  // 2020-04-01 00:00:00 UTC
  CHECK(t.header.get("Queues") == "vc1=1 vc2=2");
  check_records(
      t, {{1, 0, 30, 3600, 8, 1, 1, 1}, {3, 120, 600, 86400, 16, 5, 1, 2}, {5, 240, 0, 10, 1, 0, 2, 1}});
}

TEST_CASE("a Philly job log round-trips, attempts merged and unstarted jobs skipped", "[convert]") {
  const auto dir = scratch_dir("convert-philly");
  // Layout of msr-fiddle/philly-traces cluster_job_log: jobid, submitted_time, status, attempts with
  // start/end times and the GPUs of each machine.
  const auto file = write(dir, "cluster_job_log", R"([
 {"status": "Pass", "vc": "6214e9", "jobid": "application_1", "user": "u1",
  "submitted_time": "2017-10-03 02:45:06",
  "attempts": [{"start_time": "2017-10-03 02:45:16", "end_time": "2017-10-03 03:45:16",
                "detail": [{"ip": "m1", "gpus": ["gpu0", "gpu1"]}, {"ip": "m2", "gpus": ["gpu0", "gpu1"]}]}]},
 {"status": "Killed", "vc": "ee9e8c", "jobid": "application_2", "user": "u2",
  "submitted_time": "2017-10-03 02:50:00", "attempts": []},
 {"status": "Failed", "vc": "6214e9", "jobid": "application_3", "user": "u2",
  "submitted_time": "2017-10-03 03:00:00",
  "attempts": [{"start_time": "2017-10-03 03:00:05", "end_time": "2017-10-03 03:10:00",
                "detail": [{"ip": "m3", "gpus": ["gpu3"]}]},
               {"start_time": "2017-10-03 03:20:00", "end_time": "2017-10-03 04:00:05",
                "detail": [{"ip": "m4", "gpus": ["gpu0", "gpu2"]}]}]},
 {"status": "Pass", "vc": "6214e9", "jobid": "application_4", "user": "u1",
  "submitted_time": "2017-10-03 03:05:00",
  "attempts": [{"start_time": "2017-10-03 03:05:00", "end_time": "None", "detail": [{"ip": "m5", "gpus": ["gpu0"]}]}]}
])");
  const Conversion c = convert_philly(file);
  CHECK(c.rows_read == 4);
  CHECK(c.skipped.entries() == std::vector<std::pair<std::string, std::size_t>>{
                                   {"no attempts (never started)", 1},
                                   {"last attempt has no end_time (running when the log ends)", 1}});
  CHECK(c.adjusted.total() == 1);
  const SwfTrace t = round_trip(c);
  CHECK(t.header.get("Queues") == "6214e9=1");
  check_records(t, {{1, 0, 10, 3600, 4, 1, 1, 1}, {3, 894, 5, 3600, 2, 0, 2, 1}});
}

TEST_CASE("malformed converter input names the file, line and column", "[convert][errors]") {
  const auto dir = scratch_dir("convert-errors");
  const auto helios =
      write(dir, "bad.csv",
            "job_id,user,vc,gpu_num,state,submit_time,start_time,end_time,duration\n"
            "a1,u,v,eight,COMPLETED,2020-04-01 00:00:00,2020-04-01 00:00:00,2020-04-01 00:00:01,1\n");
  CHECK_THROWS_WITH(convert_helios(helios),
                    (helios.string() + ":2: field 4 (gpu_num): expected an integer, got \"eight\""));
  const auto missing = write(dir, "missing.csv", "name,num_gpu\np,1\n");
  CHECK_THROWS_WITH(convert_alibaba(missing), missing.string() + ":1: missing column \"gpu_milli\"");
  const auto philly = write(dir, "bad.json", R"([{"submitted_time": "yesterday", "attempts": []}])");
  CHECK_THROWS_WITH(
      convert_philly(philly),
      philly.string() + ": [0].submitted_time: expected YYYY-MM-DD HH:MM:SS, got \"yesterday\"");
  // A machine's GPUs as a string used to count as none, and the job was skipped as having no GPUs.
  const auto gpus = write(dir, "gpus.json", R"([{"submitted_time": "2017-10-03 02:45:06", "attempts":
      [{"start_time": "2017-10-03 02:45:16", "end_time": "2017-10-03 03:45:16",
        "detail": [{"ip": "m1", "gpus": "gpu0"}]}]}])");
  CHECK_THROWS_WITH(convert_philly(gpus),
                    gpus.string() + ": [0].attempts[0].detail[0].gpus: expected a list of GPU names");
  // A phase the trace does not define is not guessed at.
  const auto phase = write(dir, "phase.csv",
                           "name,cpu_milli,memory_mib,num_gpu,gpu_milli,gpu_spec,qos,pod_phase,creation_time,"
                           "deletion_time,scheduled_time\np,1,1,1,1000,,LS,Weird,0,10,5\n");
  CHECK_THROWS_WITH(convert_alibaba(phase),
                    phase.string() +
                        ":2: field 8 (pod_phase): expected Succeeded, Failed or Running for a "
                        "scheduled pod, got \"Weird\"");
}

TEST_CASE("nvlsim workload convert reports skipped rows and exits 2 on bad input", "[convert][e2e]") {
  const auto dir = scratch_dir("convert-cli");
  auto r =
      nvlsim::test::run_nvlsim("workload convert --from alibaba " +
                                   nvlsim::test::data_file("alibaba-gpu-v2023/openb_pod_list_default.csv") +
                                   " -o " + (dir / "a.swf").string(),
                               dir);
  CHECK(r.status == 0);
  CHECK(r.err.find("8152 rows read, 6203 jobs written") != std::string::npos);
  CHECK(r.err.find("skipped 1088: requests no GPU (CPU-only pod)") != std::string::npos);
  CHECK(read_swf(dir / "a.swf").records.size() == 6203);
  r = nvlsim::test::run_nvlsim("workload convert --from slurm x.csv -o y.swf", dir);
  CHECK(r.status == 2);
  CHECK(r.err == "nvlsim: --from: expected alibaba, helios or philly, got \"slurm\"\n");
}
