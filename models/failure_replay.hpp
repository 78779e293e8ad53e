#pragma once
// Replay files of failures (`--failures FILE.csv`): real incident logs or hand-written test cases.

#include <filesystem>
#include <vector>

#include "models/failure_event.hpp"

namespace nvlsim {

// Header `time,component,id,duration`, then one failure per line: time in s from the first submission,
// component one of gpu, tray, nvswitch, nvlink, nic, rack, its id (failure_event.hpp), duration in s until
// repaired. Blank lines and lines starting with '#' are skipped. Returns the failures sorted by time
// (stable). Times and durations are at most 1e12 s, lines at most 4096 bytes. Throws InputError
// "FILE:LINE: field N (name): ..." for a malformed line or an id outside the machine, and "FILE: ..." for
// a file without the header or without a failure after it.
std::vector<FailureEvent> read_failure_replay(const std::filesystem::path& path, const ClusterShape& shape,
                                              int switches);

}  // namespace nvlsim
