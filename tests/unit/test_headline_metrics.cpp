// Headline metrics on a hand-built schedule whose every figure is worked out by hand below.

#include <catch2/catch.hpp>

#include <cmath>
#include <sstream>
#include <vector>

#include "analysis/comparison_table.hpp"
#include "analysis/cost_model.hpp"
#include "analysis/csv_output.hpp"
#include "analysis/distribution.hpp"
#include "analysis/sample_steps.hpp"
#include "analysis/summary.hpp"
#include "analysis/summary_csv.hpp"

using namespace nvlsim;

namespace {

constexpr int kGpus = 8;

StateSample sample(double time, int busy, int free, int held, int down, int queued, int stranded = 0,
                   double fgd = 0) {
  StateSample s;
  s.time = time;
  s.busy_gpus = busy;
  s.free_gpus = free;
  s.held_idle_gpus = held;
  s.down_gpus = down;
  s.queued_jobs = queued;
  s.stranded_gpus = stranded;
  s.fgd_fragment_gpus = fgd;
  return s;
}

JobOutcome ran(FinalState state, double start, double finish, int first_gpu, int gpus, int domains,
               double bw) {
  JobOutcome o;
  o.state = state;
  o.start = start;
  o.finish = finish;
  for (int g = 0; g < gpus; ++g) o.gpus.push_back(first_gpu + g);
  o.domains = domains;
  o.bw_efficiency = bw;
  return o;
}

// An 8-GPU cluster over [0, 300] s:
//   A: 4 GPUs, submit 0, runs 0-100, trace run time 100.5 (100 - 100.5 < 0: clamped), bw 1.0
//   B: 8 GPUs over 2 domains, submit 10, runs 100-250, trace run time 120, bw 0.5
//   C: 2 GPUs, submit 20, runs 250-300, killed at its limit (trace 40: not a slowdown), no communication
//   D: rejected
// Busy GPU-s = 4x100 + 8x150 + 2x50 = 1700; idle = 8x300 - 1700 = 700.
struct Schedule {
  std::vector<Job> jobs{
      {1, 0, 4, 200, 100.5, 1}, {2, 10, 8, 200, 120, 2}, {3, 20, 2, 50, 40, 3}, {4, 30, 9, 1, 1, 4}};
  std::vector<JobOutcome> outcomes{
      ran(FinalState::completed_successfully, 0, 100, 0, 4, 1, 1.0),
      ran(FinalState::completed_successfully, 100, 250, 0, 8, 2, 0.5),
      ran(FinalState::completed_walltime_reached, 250, 300, 0, 2, 1, NAN),
      JobOutcome{},
  };
  // Idle by sample interval (GPU-s):       no demand  queued   down  stranded  free   fgd
  std::vector<StateSample> samples{
      sample(0, 4, 4, 0, 0, 0),            // [0,10)     40
      sample(10, 4, 3, 0, 1, 1),           // [10,20)              30      10              30
      sample(20, 4, 2, 1, 1, 2, 2, 1.0),   // [20,100)            240      80     160     160    80
      sample(100, 8, 0, 0, 0, 1),          // [100,250)
      sample(250, 2, 6, 0, 0, 0, 0, 0.5),  // [250,300)  300                              300    25
      sample(300, 0, 8, 0, 0, 0),          // end
  };
  // Totals: no demand 340, queued 270, down 90 (sum 700 = idle), stranded 160, free 530, fgd 105.
  Schedule() {
    samples[3].nvlink_util = 0.5;  // 150 s x 0.5 = 75 of 300 s
    samples[3].ib_util = 0.1;      // 15 of 300 s
  }
};

}  // namespace

TEST_CASE("weighted quantiles pick the value where the cumulative weight reaches q", "[metrics]") {
  const std::vector<Weighted> items{{1.0, 400}, {0.5, 1200}, {0.8, 0}};
  CHECK(weighted_quantile(items, 0.1) == 0.5);
  CHECK(weighted_quantile(items, 0.75) == 0.5);  // 1200 of 1600 reached exactly at 0.5
  CHECK(weighted_quantile(items, 0.76) == 1.0);
  CHECK(std::isnan(weighted_quantile(std::vector<Weighted>{}, 0.5)));
  CHECK(std::isnan(weighted_quantile(std::vector<Weighted>{{0.3, 0}}, 0.5)));
}

TEST_CASE("sample integrals weight each state by how long it held, inside the window", "[metrics]") {
  const Schedule s;
  const auto all = integrate(s.samples, 0, 300);
  CHECK(all.seconds == 300);
  CHECK(all.busy == 1700);
  CHECK(all.free == 530);
  CHECK(all.held_idle == 80);
  CHECK(all.down == 90);
  CHECK(all.stranded == 160);
  CHECK(all.fgd_fragments == 105);
  CHECK(all.idle_queued == 270);
  CHECK(all.idle_no_demand == 340);
  CHECK(all.nvlink_util == 75);
  CHECK(all.ib_util == Approx(15));
  // [15, 120]: 5 s of the t=10 state, 80 s of the t=20 one, 20 s of the t=100 one.
  const auto part = integrate(s.samples, 15, 120);
  CHECK(part.seconds == 105);
  CHECK(part.free == 3 * 5 + 2 * 80);
  CHECK(part.idle_queued == 3 * 5 + 3 * 80);
  CHECK(part.nvlink_util == 0.5 * 20);
  CHECK(integrate({}, 0, 300).seconds == 0);
}

TEST_CASE("rack_failures counts the whole-rack failures within the window", "[metrics]") {
  const Schedule s;  // the window is [0, 300]
  const std::vector<double> times = {-5, 0, 120, 300, 300.5, 4000};
  CHECK(summarize("p", s.jobs, s.outcomes, s.samples, kGpus, 2.0, {}, times).failures.rack_failures == 3);
  CHECK(summarize("p", s.jobs, s.outcomes, s.samples, kGpus, 2.0).failures.rack_failures == 0);
}

TEST_CASE("summary figures of the hand-built schedule", "[metrics]") {
  const Schedule s;
  const Summary sum = summarize("p", s.jobs, s.outcomes, s.samples, kGpus, 2.0);
  CHECK(sum.makespan == 300);
  CHECK(sum.bw_utilization == Approx((1.0 * 400 + 0.5 * 1200) / 1600));

  const auto& b = sum.bandwidth;
  CHECK(b.bw_efficiency_p10 == 0.5);
  CHECK(b.bw_efficiency_p50 == 0.5);
  CHECK(b.bw_efficiency_p90 == 1.0);
  CHECK(b.cross_domain_gpu_hours == Approx(1200.0 / 3600));
  CHECK(b.slowdown_gpu_hours == Approx(8 * 30.0 / 3600));
  CHECK(b.nvlink_utilization == Approx(0.25));
  CHECK(b.ib_utilization == Approx(0.05));

  const auto& f = sum.fragmentation;
  CHECK(f.stranded_gpu_hours == Approx(160.0 / 3600));
  CHECK(f.fragmentation == Approx(160.0 / (530 + 80)));  // of idle time: free 530 + held 80
  CHECK(f.idle_while_queued_gpu_hours == Approx(270.0 / 3600));
  CHECK(f.fgd_fragmentation == Approx(105.0 / 530));

  const auto& i = sum.idle;
  CHECK(i.gpu_hour_usd == 2.0);
  CHECK(i.busy_gpu_hours == Approx(1700.0 / 3600));
  CHECK(i.idle_gpu_hours == Approx(700.0 / 3600));
  CHECK(i.idle_no_demand_gpu_hours == Approx(340.0 / 3600));
  CHECK(i.idle_failure_gpu_hours == Approx(90.0 / 3600));
  CHECK(i.idle_scheduling_gpu_hours == Approx(270.0 / 3600));
  CHECK(i.idle_scheduling_gpu_hours == Approx(f.idle_while_queued_gpu_hours));
  CHECK(i.idle_no_demand_gpu_hours + i.idle_scheduling_gpu_hours + i.idle_failure_gpu_hours ==
        Approx(i.idle_gpu_hours).epsilon(1e-12));
  CHECK(i.idle_cost_usd() == Approx(700.0 / 3600 * 2));
  CHECK(i.idle_failure_cost_usd() == Approx(90.0 / 3600 * 2));
  CHECK(sum.slowdown_cost_usd == Approx(240.0 / 3600 * 2));
}

TEST_CASE("the window starts at the first submission of a job that ran", "[metrics]") {
  Schedule s;
  // Shift everything by 50 s and add a job submitted at 0 that is rejected: the window is [50, 350].
  for (auto& j : s.jobs) j.submit_time += 50;
  for (auto& o : s.outcomes)
    if (o.state != FinalState::rejected) o.start += 50, o.finish += 50;
  for (auto& x : s.samples) x.time += 50;
  s.samples.insert(s.samples.begin(), sample(0, 0, 8, 0, 0, 0));
  s.jobs[3].submit_time = 0;
  const Summary sum = summarize("p", s.jobs, s.outcomes, s.samples, kGpus, 2.0);
  CHECK(sum.makespan == 300);
  CHECK(sum.idle.idle_no_demand_gpu_hours == Approx(340.0 / 3600));
  CHECK(sum.idle.idle_scheduling_gpu_hours == Approx(270.0 / 3600));
}

TEST_CASE("without samples the sampled figures are 0 and idle time is still the jobs' complement",
          "[metrics]") {
  const Schedule s;
  const Summary sum = summarize("p", s.jobs, s.outcomes, {}, kGpus, 2.0);
  CHECK(sum.fragmentation.fragmentation == 0);
  CHECK(sum.fragmentation.stranded_gpu_hours == 0);
  CHECK(sum.fragmentation.fgd_fragmentation == 0);
  CHECK(sum.bandwidth.nvlink_utilization == 0);
  CHECK(sum.idle.idle_gpu_hours == Approx(700.0 / 3600));
  CHECK(sum.idle.idle_no_demand_gpu_hours + sum.idle.idle_scheduling_gpu_hours +
            sum.idle.idle_failure_gpu_hours ==
        Approx(sum.idle.idle_gpu_hours));
  // No job ran at all: everything is 0 or undefined, nothing divides by zero.
  const std::vector<JobOutcome> none(s.jobs.size());
  const Summary empty = summarize("p", s.jobs, none, s.samples, kGpus, 2.0);
  CHECK(empty.makespan == 0);
  CHECK(empty.idle.idle_gpu_hours == 0);
  CHECK(empty.fragmentation.fragmentation == 0);
  CHECK(std::isnan(empty.bandwidth.bw_efficiency_p50));
}

TEST_CASE("the owner model gives US$1.3558 per GPU-hour, and a rental price replaces it", "[metrics][cost]") {
  CostModel model;
  // (3e6 / (4 x 8760) + 120 x 0.10) / 72
  CHECK(gpu_hour_usd(model, 72) == Approx((3e6 / 35040 + 12) / 72));
  CHECK(gpu_hour_usd(model, 72) == Approx(1.3558).epsilon(1e-4));
  model.rack_power_kw = 0;
  model.rack_price_usd = 8760 * 72;
  model.amortization_years = 1;
  CHECK(gpu_hour_usd(model, 72) == Approx(1.0));
  model.rental_gpu_hour_usd = 2.5;
  CHECK(gpu_hour_usd(model, 72) == 2.5);
}

TEST_CASE("timeseries rows: every change, or the state in force at each fixed step",
          "[metrics][timeseries]") {
  const Schedule s;
  const auto every = sample_rows(s.samples, 0);
  REQUIRE(every.size() == s.samples.size());
  CHECK(every[3].time == 100);
  CHECK(every[3].sample == 3);
  const auto stepped = sample_rows(s.samples, 120);
  REQUIRE(stepped.size() == 3);  // 0, 120, 240 (360 is past the last sample at 300)
  CHECK(stepped[0].sample == 0);
  CHECK(stepped[1].time == 120);
  CHECK(stepped[1].sample == 3);  // the t=100 state
  CHECK(stepped[2].sample == 3);
  const auto exact = sample_rows(s.samples, 100);
  REQUIRE(exact.size() == 4);
  CHECK(exact[1].sample == 3);  // a step on a sample's time shows that sample
  CHECK(exact[3].sample == 5);
  CHECK(sample_rows({}, 10).empty());
}

TEST_CASE("a sample step that would write more than ten million rows is refused", "[metrics][timeseries]") {
  const Schedule s;  // samples from 0 s to 300 s
  CHECK(sample_rows(s.samples, 300.0 / (nvlsim::kMaxSampleRows - 1)).size() == nvlsim::kMaxSampleRows);
  CHECK_THROWS_WITH(
      sample_rows(s.samples, 1e-9),
      "sample step 1e-09 s: 3e+11 timeseries rows from 0 s to 300 s, more than 10000000; use a step "
      "of at least 3e-05 s");
  CHECK_THROWS_WITH(sample_rows(s.samples, 1e-300), "sample step 1e-300 s: too fine for times up to 300 s");
}

TEST_CASE("timeseries.csv and summary.csv keep their columns, policies sorted by name", "[metrics][csv]") {
  const Schedule s;
  const std::vector<std::string> policies{"tree", "block", "tree"};
  CHECK(policy_row_order(policies) == std::vector<std::size_t>{1, 0, 2});
  std::ostringstream ts;
  write_timeseries_header(ts);
  write_timeseries_rows(ts, "block", std::span(s.samples).first(2), 0);
  write_timeseries_rows(ts, "tree", s.samples, 0);
  std::istringstream in(ts.str());
  std::string header, first, third;
  std::getline(in, header);
  std::getline(in, first);
  std::getline(in, third);
  std::getline(in, third);
  CHECK(header ==
        "policy,time,busy_gpus,free_gpus,down_gpus,stranded_gpus,queued_jobs,queued_gpus,nvlink_util,ib_util,"
        "held_idle_gpus,fgd_fragment_gpus,largest_free_run_max,idle_domains,failure_stranded_gpus,"
        "shared_free_gpus");
  CHECK(first == "block,0,4,4,0,0,0,0,0,0,0,0,0,0,0,0");
  CHECK(third == "tree,0,4,4,0,0,0,0,0,0,0,0,0,0,0,0");

  std::ostringstream sum;
  const std::vector<Summary> summaries{summarize("p", s.jobs, s.outcomes, s.samples, kGpus, 2.0)};
  write_summary_csv(sum, summaries);
  // The columns before this come first, unchanged.
  CHECK(
      sum.str().rfind("policy,nb_jobs,nb_jobs_success,nb_jobs_killed,nb_jobs_rejected,makespan,mean_waiting_"
                      "time,max_waiting_time,mean_turnaround_time,mean_slowdown,gpu_utilization,cross_domain_"
                      "jobs,bw_utilization,bw_efficiency_p10,",
                      0) == 0);
  // Failure columns (issue 6), then availability, cost per delivered GPU-hour and rack failures (issue 18).
  const std::string header_line = sum.str().substr(0, sum.str().find('\n'));
  CHECK(header_line.ends_with(
      ",slowdown_cost_usd,jobs_killed,down_gpu_hours,failure_stranded_gpu_hours,lost_"
      "work_gpu_hours,goodput,availability,cost_per_delivered_gpu_hour_usd,rack_failures"));
}

TEST_CASE("a summary.csv row reads back into the summary it was written from", "[metrics][csv]") {
  const Schedule s;
  Summary in = summarize("sub-block:a=\"x,y\"", s.jobs, s.outcomes, s.samples, kGpus, 2.0 / 3.0);
  in.bw_utilization = NAN;
  const std::string row = summary_row(in);
  const Summary out = parse_summary_row(row);
  // Every column, derived ones included, and what the printed table shows.
  CHECK(summary_row(out) == row);
  CHECK(out.policy == in.policy);
  CHECK(comparison_table(std::vector{out}) == comparison_table(std::vector{in}));
  CHECK_THROWS_WITH(parse_summary_row(row + ",1"), "a summary row of 44 cells, not 43");
  std::string bad = summary_row(Summary{});  // ",0,...": nb_jobs at 1
  bad[1] = 'x';
  CHECK_THROWS_WITH(parse_summary_row(bad), "'x' is not a count");
}

TEST_CASE("the printed table shows headline changes against per-gpu", "[metrics][report]") {
  CHECK(relative_change(1.1, 1.0) == "+10.0%");
  CHECK(relative_change(0.9, 1.0) == "-10.0%");
  CHECK(relative_change(1.0, 0.0).empty());
  CHECK(relative_change(NAN, 1.0).empty());
  Summary base, other;
  base.policy = "per-gpu";
  base.bw_utilization = 0.5;
  other.policy = "block";
  other.bw_utilization = 0.625;
  const std::vector<Summary> both{base, other};
  const std::string table = comparison_table(both);
  CHECK(table.find("change against per-gpu") != std::string::npos);
  CHECK(table.find("0.625 +25.0%") != std::string::npos);
  const std::string alone = comparison_table(std::span(both).last(1));
  CHECK(alone.find("change against") == std::string::npos);
  CHECK(alone.find('%') == std::string::npos);
}
