// The output folder holds exactly one run: what a committed run writes, nothing of the run before.

#include <sys/wait.h>
#include <unistd.h>

#include <catch2/catch.hpp>

#include <csignal>
#include <filesystem>
#include <fstream>
#include <string>

#include "nvlsim_process.hpp"
#include "sim/deferred_signals.hpp"
#include "sim/engine_setup.hpp"
#include "sim/output_files.hpp"

namespace fs = std::filesystem;
using nvlsim::OutputFiles;

namespace {

void write_set(const fs::path& dir, const std::vector<std::string>& names) {
  OutputFiles out(dir);
  for (const std::string& name : names) out.write(name, [&](std::ostream& o) { o << name; });
  out.commit();
}

}  // namespace

TEST_CASE("a committed run removes the files of the run before that it did not write", "[output]") {
  const fs::path dir = nvlsim::test::scratch_dir("output-ledger");
  std::ofstream(dir / "notes.txt") << "mine";
  write_set(dir, {"jobs.csv", "schedule-block.swf", "run.json"});
  CHECK(fs::exists(dir / "schedule-block.swf"));
  write_set(dir, {"jobs.csv", "run.json"});
  CHECK(!fs::exists(dir / "schedule-block.swf"));
  CHECK(nvlsim::test::slurp((dir / "jobs.csv").string()) == "jobs.csv");
  // A file nvlsim never wrote stays.
  CHECK(fs::exists(dir / "notes.txt"));
  CHECK(nvlsim::test::slurp((dir / OutputFiles::kLedger).string()) == "jobs.csv\nrun.json\n");
}

TEST_CASE("files adopted after the commit are the run's too, and a ledger cannot point outside", "[output]") {
  const fs::path dir = nvlsim::test::scratch_dir("output-adopt");
  {
    OutputFiles out(dir);
    out.write("run.json", [](std::ostream& o) { o << "{}"; });
    out.commit();
    std::ofstream(dir / "figure.png") << "png";
    out.adopt({"figure.png"});
  }
  write_set(dir, {"run.json"});
  CHECK(!fs::exists(dir / "figure.png"));
  const fs::path outside = dir.parent_path() / "output-adopt-outside.txt";
  std::ofstream(outside) << "x";
  std::ofstream(dir / OutputFiles::kLedger) << "../output-adopt-outside.txt\n"
                                            << outside.string() << "\n..\n";
  write_set(dir, {"run.json"});
  CHECK(fs::exists(outside));
}

TEST_CASE("a set that is not committed leaves the folder as it was", "[output]") {
  const fs::path dir = nvlsim::test::scratch_dir("output-uncommitted");
  write_set(dir, {"jobs.csv", "schedule-tree.swf"});
  {
    OutputFiles out(dir);
    out.write("jobs.csv", [](std::ostream& o) { o << "new"; });
  }
  CHECK(nvlsim::test::slurp((dir / "jobs.csv").string()) == "jobs.csv");
  CHECK(fs::exists(dir / "schedule-tree.swf"));
  for (const auto& entry : fs::directory_iterator(dir)) CHECK(entry.path().extension() != ".partial");
}

TEST_CASE("a folder in a file's place fails the commit before anything moves", "[output]") {
  const fs::path dir = nvlsim::test::scratch_dir("output-folder-in-place");
  write_set(dir, {"jobs.csv", "summary.csv", "run.json"});
  fs::create_directories(dir / "schedule-x.swf" / "inside");
  OutputFiles out(dir);
  for (const std::string name : {"jobs.csv", "schedule-x.swf", "run.json"})
    out.write(name, [](std::ostream& o) { o << "new"; });
  CHECK_THROWS_WITH(out.commit(),
                    Catch::Contains("schedule-x.swf: cannot move into place: a folder has that name"));
  // The earlier run is whole: no file of it replaced or removed.
  CHECK(nvlsim::test::slurp((dir / "jobs.csv").string()) == "jobs.csv");
  CHECK(fs::exists(dir / "summary.csv"));
  CHECK(nvlsim::test::slurp((dir / "run.json").string()) == "run.json");
}

TEST_CASE("a signal held back during the join makes the writers give up at the next file", "[output]") {
  const fs::path dir = nvlsim::test::scratch_dir("output-interrupted");
  struct sigaction old {};
  ::sigaction(SIGTERM, nullptr, &old);
  {
    nvlsim::DeferredSignals deferred;
    deferred.hold();
    OutputFiles out(dir);
    out.write("jobs.csv", [](std::ostream& o) { o << "rows"; });
    ::raise(SIGTERM);  // held: it waits
    CHECK_THROWS_AS(out.write("summary.csv", [](std::ostream& o) { o << "rows"; }), nvlsim::Interrupted);
    // Discarded rather than delivered when the guard ends, so that the test goes on.
    std::signal(SIGTERM, SIG_IGN);
  }
  ::sigaction(SIGTERM, &old, nullptr);
  CHECK(fs::is_empty(dir));
}

TEST_CASE("a signal that arrives while the set is moved into place says the output is complete", "[output]") {
  const fs::path dir = nvlsim::test::scratch_dir("output-commit-signal");
  int err[2];
  REQUIRE(::pipe(err) == 0);
  // In a child, as run_command does it: the handler ends the process.
  const pid_t child = ::fork();
  REQUIRE(child >= 0);
  if (child == 0) {
    ::dup2(err[1], STDERR_FILENO);
    nvlsim::say_when_interrupted();
    nvlsim::DeferredSignals deferred;
    deferred.hold();
    OutputFiles out(dir);
    out.write("jobs.csv", [](std::ostream& o) { o << "rows"; });
    ::raise(SIGTERM);  // held: after the writers' last check, while the set is moved into place
    out.commit();
    deferred.release();  // delivers it
    ::_exit(0);
  }
  ::close(err[1]);
  std::string said;
  char chunk[256];
  for (ssize_t got; (got = ::read(err[0], chunk, sizeof chunk)) > 0;) said.append(chunk, got);
  ::close(err[0]);
  int status = 0;
  REQUIRE(::waitpid(child, &status, 0) == child);
  CHECK(WIFSIGNALED(status));
  CHECK(WTERMSIG(status) == SIGTERM);
  CHECK(said == "\nnvlsim: terminated (SIGTERM): the output was already written in full\n");
  CHECK(nvlsim::test::slurp((dir / "jobs.csv").string()) == "rows");
}
