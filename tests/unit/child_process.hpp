#pragma once
// Runs test code in a forked child: SimGrid allows one engine per process, and a child may die of what
// the test process must survive.

#include <functional>
#include <map>
#include <ostream>
#include <string>

namespace nvlsim::test {

struct ChildResult {
  std::string text;  // what the child wrote to its stream
  int status = 0;    // its wait status
};

// Runs `body` in a child process with SIGTERM and SIGINT at their defaults; the child exits 0, or 1 after
// writing "error WHAT" for an exception. Children the child leaves running do not hold the call up. A
// minute at most, so a child that hangs fails the test instead of blocking the suite.
ChildResult run_in_child(const std::function<void(std::ostream&)>& body);

// run_in_child that requires the child to exit 0 (showing what it wrote when not) and returns its text.
std::string checked_child_output(const std::function<void(std::ostream&)>& body);

// checked_child_output's "key value" pairs: what scenarios measured inside a SimGrid engine.
std::map<std::string, double> child_values(const std::function<void(std::ostream&)>& body);

}  // namespace nvlsim::test
