#include <catch2/catch.hpp>

#include <algorithm>
#include <numeric>
#include <random>
#include <set>
#include <vector>

#include "sim/core/job_queue.hpp"

using nvlsim::JobQueue;
using nvlsim::QueuedJob;

namespace {

std::vector<std::size_t> ids(const JobQueue& q) {
  std::vector<std::size_t> out;
  for (const QueuedJob& j : q.jobs()) out.push_back(j.job);
  return out;
}

}  // namespace

TEST_CASE("job queue removes started jobs, keeping the order of the rest and the GPU total") {
  JobQueue q;
  for (std::size_t j = 0; j < 8; ++j) q.push_back({j, {static_cast<int>(j + 1)}, 60});
  REQUIRE(q.gpus() == 36);
  const std::set<std::size_t> started{0, 2, 3, 6};
  q.remove(started.size(), [&](std::size_t j) { return started.count(j) > 0; });
  CHECK(ids(q) == std::vector<std::size_t>{1, 4, 5, 7});
  CHECK(q.gpus() == 36 - 1 - 3 - 4 - 7);
  CHECK(q.size() == 4);
  q.remove(0, [](std::size_t) { return true; });
  CHECK(q.size() == 4);
}

TEST_CASE("job queue puts a requeued job back at its admission place") {
  JobQueue q;
  std::vector<std::size_t> order{0, 1, 2, 3, 4};
  for (std::size_t j : {1, 3, 4}) q.push_back({j, {2}, 60});
  q.insert({2, {8}, 60}, order);
  q.insert({0, {8}, 60}, order);
  CHECK(ids(q) == std::vector<std::size_t>{0, 1, 2, 3, 4});
  CHECK(q.gpus() == 22);
}

TEST_CASE("job queue agrees with a plain vector over a long random life, through compactions") {
  std::mt19937_64 rng(7);
  JobQueue q;
  std::vector<QueuedJob> reference;
  std::size_t next = 0;
  for (int step = 0; step < 20000; ++step) {
    for (int k = static_cast<int>(rng() % 4); k > 0; --k) {
      const QueuedJob job{next++, {static_cast<int>(rng() % 64) + 1}, 60};
      q.push_back(job);
      reference.push_back(job);
    }
    std::set<std::size_t> started;
    for (std::size_t i = 0; i < std::min<std::size_t>(rng() % 8, reference.size()); ++i)
      if (rng() % 2) started.insert(reference[i].job);
    q.remove(started.size(), [&](std::size_t j) { return started.count(j) > 0; });
    reference.erase(std::remove_if(reference.begin(), reference.end(),
                                   [&](const QueuedJob& j) { return started.count(j.job) > 0; }),
                    reference.end());
    REQUIRE(q.size() == reference.size());
  }
  std::vector<std::size_t> expected;
  for (const QueuedJob& j : reference) expected.push_back(j.job);
  CHECK(ids(q) == expected);
  CHECK(q.gpus() == std::accumulate(reference.begin(), reference.end(), std::int64_t{0},
                                    [](std::int64_t s, const QueuedJob& j) { return s + j.request.gpus; }));
}
