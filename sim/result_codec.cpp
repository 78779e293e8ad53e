#include "sim/result_codec.hpp"

#include <cstdint>
#include <cstring>
#include <stdexcept>
#include <type_traits>

namespace nvlsim {

namespace {

class Writer {
 public:
  explicit Writer(std::size_t capacity) { out_.reserve(capacity); }
  template <class T>
  void put(T value) requires std::is_arithmetic_v<T> {
    out_.append(reinterpret_cast<const char*>(&value), sizeof value);
  }
  void put(std::string_view s) {
    put<std::uint64_t>(s.size());
    out_.append(s);
  }
  std::string take() { return std::move(out_); }

 private:
  std::string out_;
};

class Reader {
 public:
  explicit Reader(std::string_view in) : in_(in) {}
  template <class T>
  T get() requires std::is_arithmetic_v<T> {
    T value;
    std::memcpy(&value, take(sizeof value).data(), sizeof value);
    return value;
  }
  std::string get_string() { return std::string(take(get<std::uint64_t>())); }
  bool done() const { return in_.empty(); }

 private:
  std::string_view take(std::size_t n) {
    if (n > in_.size()) throw std::runtime_error("nvlsim: truncated result from a policy process");
    auto part = in_.substr(0, n);
    in_.remove_prefix(n);
    return part;
  }
  std::string_view in_;
};

// What encode() writes, give or take: a long replay's result runs to a hundred megabytes, and growing the
// string by doubling copied it over and again.
std::size_t encoded_size_hint(const PolicyResult& result) {
  constexpr std::size_t kSample = 8 + 7 * 4 + 8 + 3 * 8 + 2 * 4;
  std::size_t size = 64 + result.policy.size() + result.samples.size() * kSample;
  for (const auto& o : result.outcomes) size += 69 + o.gpus.size() * 4 + o.reason.size();
  for (const auto& k : result.killed) size += 64 + k.gpus.size() * 4 + k.reason.size();
  return size;
}

}  // namespace

std::string encode(const PolicyResult& result) {
  Writer w(encoded_size_hint(result));
  w.put(result.policy);
  w.put(result.wall_seconds);
  w.put<std::uint64_t>(result.outcomes.size());
  for (const auto& o : result.outcomes) {
    w.put(static_cast<std::uint8_t>(o.state));
    w.put(o.start);
    w.put(o.finish);
    w.put<std::uint64_t>(o.gpus.size());
    for (int g : o.gpus) w.put<std::int32_t>(g);
    w.put<std::int32_t>(o.domains);
    w.put<std::int32_t>(o.restarts);
    w.put(o.comm_bytes);
    w.put(o.cross_domain_bytes);
    w.put(o.bw_efficiency);
    w.put(o.reason);
  }
  w.put<std::uint64_t>(result.samples.size());
  for (const auto& s : result.samples) {
    w.put(s.time);
    for (int v : {s.busy_gpus, s.free_gpus, s.down_gpus, s.held_idle_gpus, s.stranded_gpus,
                  s.failure_stranded_gpus, s.queued_jobs})
      w.put<std::int32_t>(v);
    w.put<std::int64_t>(s.queued_gpus);
    w.put(s.nvlink_util);
    w.put(s.ib_util);
    w.put(s.fgd_fragment_gpus);
    w.put<std::int32_t>(s.largest_free_run);
    w.put<std::int32_t>(s.idle_domains);
  }
  w.put<std::uint64_t>(result.killed.size());
  for (const auto& k : result.killed) {
    w.put<std::uint64_t>(k.job);
    w.put<std::int32_t>(k.attempt);
    w.put(k.start);
    w.put(k.finish);
    w.put<std::uint64_t>(k.gpus.size());
    for (int g : k.gpus) w.put<std::int32_t>(g);
    w.put(k.work_done);
    w.put(k.work_kept);
    w.put(k.reason);
  }
  return w.take();
}

PolicyResult decode(std::string_view bytes) {
  Reader r(bytes);
  PolicyResult result;
  result.policy = r.get_string();
  result.wall_seconds = r.get<double>();
  result.outcomes.resize(r.get<std::uint64_t>());
  for (auto& o : result.outcomes) {
    o.state = static_cast<FinalState>(r.get<std::uint8_t>());
    o.start = r.get<double>();
    o.finish = r.get<double>();
    o.gpus.resize(r.get<std::uint64_t>());
    for (int& g : o.gpus) g = r.get<std::int32_t>();
    o.domains = r.get<std::int32_t>();
    o.restarts = r.get<std::int32_t>();
    o.comm_bytes = r.get<double>();
    o.cross_domain_bytes = r.get<double>();
    o.bw_efficiency = r.get<double>();
    o.reason = r.get_string();
  }
  result.samples.resize(r.get<std::uint64_t>());
  for (auto& s : result.samples) {
    s.time = r.get<double>();
    for (int* v : {&s.busy_gpus, &s.free_gpus, &s.down_gpus, &s.held_idle_gpus, &s.stranded_gpus,
                   &s.failure_stranded_gpus, &s.queued_jobs})
      *v = r.get<std::int32_t>();
    s.queued_gpus = r.get<std::int64_t>();
    s.nvlink_util = r.get<double>();
    s.ib_util = r.get<double>();
    s.fgd_fragment_gpus = r.get<double>();
    s.largest_free_run = r.get<std::int32_t>();
    s.idle_domains = r.get<std::int32_t>();
  }
  result.killed.resize(r.get<std::uint64_t>());
  for (auto& k : result.killed) {
    k.job = r.get<std::uint64_t>();
    k.attempt = r.get<std::int32_t>();
    k.start = r.get<double>();
    k.finish = r.get<double>();
    k.gpus.resize(r.get<std::uint64_t>());
    for (int& g : k.gpus) g = r.get<std::int32_t>();
    k.work_done = r.get<double>();
    k.work_kept = r.get<double>();
    k.reason = r.get_string();
  }
  if (!r.done()) throw std::runtime_error("nvlsim: trailing bytes in a policy process's result");
  return result;
}

}  // namespace nvlsim
