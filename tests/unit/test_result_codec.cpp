#include <catch2/catch.hpp>

#include <cmath>
#include <stdexcept>
#include <string>

#include "sim/result_codec.hpp"

using nvlsim::PolicyResult;

namespace {

PolicyResult sample_result() {
  PolicyResult r;
  r.policy = "sub-block:segment=9";
  r.wall_seconds = 1.25;
  r.outcomes.resize(3);
  r.outcomes[0] = {nvlsim::FinalState::completed_successfully, 10, 70, {4, 5, 6, 7}, 1, 0, 1e12, 0, 0.5, ""};
  r.outcomes[1] = {nvlsim::FinalState::completed_killed,      20, 90, {0}, 1, 5, 0, 0, NAN,
                   "tray 1 failed; requeue limit (5) reached"};
  r.outcomes[2].reason = "needs 9000 GPUs, the platform has 576";
  nvlsim::StateSample s;
  s.time = 3.5;
  s.busy_gpus = 4;
  s.free_gpus = 570;
  s.down_gpus = 2;
  s.queued_gpus = 1L << 40;
  s.nvlink_util = 0.25;
  s.fgd_fragment_gpus = 12.5;
  s.idle_domains = 7;
  r.samples = {s, s};
  r.samples[1].time = 9;
  r.killed.push_back({1, 0, 20, 50, {0}, 25, 0, "tray 1 failed"});
  return r;
}

}  // namespace

TEST_CASE("a policy result survives encoding and decoding field for field") {
  const PolicyResult in = sample_result();
  const PolicyResult out = nvlsim::decode(nvlsim::encode(in));
  CHECK(out.policy == in.policy);
  CHECK(out.wall_seconds == in.wall_seconds);
  REQUIRE(out.outcomes.size() == 3);
  for (std::size_t i = 0; i < 3; ++i) {
    CHECK(out.outcomes[i].state == in.outcomes[i].state);
    CHECK(out.outcomes[i].start == in.outcomes[i].start);
    CHECK(out.outcomes[i].finish == in.outcomes[i].finish);
    CHECK(out.outcomes[i].gpus == in.outcomes[i].gpus);
    CHECK(out.outcomes[i].restarts == in.outcomes[i].restarts);
    CHECK(out.outcomes[i].comm_bytes == in.outcomes[i].comm_bytes);
    CHECK(out.outcomes[i].reason == in.outcomes[i].reason);
  }
  CHECK(std::isnan(out.outcomes[1].bw_efficiency));
  REQUIRE(out.samples.size() == 2);
  CHECK(out.samples[1].time == 9);
  CHECK(out.samples[0].queued_gpus == in.samples[0].queued_gpus);
  CHECK(out.samples[0].fgd_fragment_gpus == 12.5);
  CHECK(out.samples[0].idle_domains == 7);
  REQUIRE(out.killed.size() == 1);
  CHECK(out.killed[0].gpus == std::vector<int>{0});
  CHECK(out.killed[0].reason == "tray 1 failed");
}

TEST_CASE("decoding rejects truncated and overlong results") {
  const std::string bytes = nvlsim::encode(sample_result());
  CHECK_THROWS_AS(nvlsim::decode(std::string_view(bytes).substr(0, bytes.size() - 1)), std::runtime_error);
  CHECK_THROWS_AS(nvlsim::decode(bytes + "x"), std::runtime_error);
}
