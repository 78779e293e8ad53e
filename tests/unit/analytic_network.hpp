#pragma once
// A Network for unit tests of the replay core without SimGrid: each transfer waits its path's latency,
// then shares the ports it crosses max-min fairly (as SimGrid's default model does). Ports are the
// closed forms' (models/collective.hpp): an NVLink flow leaves its domain's first GPU for the second, an
// InfiniBand flow leaves its source domain's first NIC for the destination domain's first NIC; optionally
// every InfiniBand flow also crosses one shared link, so jobs can slow each other.

#include <algorithm>
#include <array>
#include <limits>
#include <map>
#include <span>
#include <stdexcept>
#include <utility>
#include <vector>

#include "models/fabric_params.hpp"
#include "sim/core/network.hpp"

namespace nvlsim::test {

class AnalyticNetwork final : public Network {
 public:
  // `shared_ib`: bytes/s of the link every InfiniBand flow crosses; 0 for none.
  explicit AnalyticNetwork(const FabricParams& fabric, double shared_ib = 0)
      : fabric_(fabric), shared_ib_(shared_ib) {}

  double now() const override { return now_; }
  bool idle() const override { return live_.empty(); }

  void wait_until(double until) override {
    while (finished_.empty() && now_ < until) {
      share();
      double next = until;
      for (const Transfer& t : live_)
        next = std::min(next, t.ready > now_ ? t.ready : now_ + t.remaining / t.rate);
      for (std::size_t i = live_.size(); i-- > 0;) {
        Transfer& t = live_[i];
        if (t.ready > now_) continue;
        const bool done = now_ + t.remaining / t.rate <= next;
        const double sent = done ? t.remaining : t.rate * (next - now_);
        t.remaining -= sent;
        carried_[static_cast<int>(t.flow.plane)] += sent * t.flow.multiplicity;
        if (done) {
          finished_.push_back(t.flow);
          live_.erase(live_.begin() + static_cast<std::ptrdiff_t>(i));
        }
      }
      now_ = next;
    }
  }

  void launch_step(const std::vector<std::vector<int>>& group_gpus,
                   std::span<const Launch> launches) override {
    for (const Launch& l : launches) launch(group_gpus, l.planned, l.flow);
  }

  std::vector<Flow> take_finished() override { return std::exchange(finished_, {}); }

  CancelledFlows cancel(std::size_t job) override {
    CancelledFlows out;
    std::erase_if(live_, [&](const Transfer& t) {
      if (t.flow.job != job) return false;
      ++out.flows;
      out.sent_share += 1.0 - t.remaining / t.flow.size;
      return true;
    });
    return out;
  }

  std::array<double, 2> take_carried() override { return std::exchange(carried_, {0, 0}); }

  void set_nvlink_bandwidth(int gpu, double bandwidth) override {
    capacity_[port(0, gpu)] = capacity_[port(1, gpu)] = bandwidth;
  }

  double largest_flow() const { return largest_; }

 private:
  void launch(const std::vector<std::vector<int>>& group_gpus, const PlannedFlow& planned, const Flow& flow) {
    largest_ = std::max(largest_, flow.size);
    Transfer t{flow, {}, flow.size, now_, 0};
    if (planned.between_zones())
      throw std::logic_error("AnalyticNetwork: platforms with zones are not modelled");
    if (planned.plane == Plane::nvlink) {
      const auto& gpus = group_gpus[planned.src_group];
      t.ports = {port(0, gpus[0]), port(1, gpus[1])};
      t.ready += 2 * fabric_.nvlink_latency;
    } else {
      t.ports = {port(2, group_gpus[planned.src_group][0]), port(3, group_gpus[planned.dst_group][0])};
      if (shared_ib_ > 0) t.ports.push_back(port(4, 0));
      t.ready += 3 * fabric_.ib_latency;
    }
    live_.push_back(std::move(t));
  }

  struct Transfer {
    Flow flow;
    std::vector<int> ports;
    double remaining;
    double ready;  // when its latency has passed
    double rate;
  };

  // Port `kind` (0/1 NVLink out/in, 2/3 NIC out/in, 4 the shared link) of a GPU, by index.
  int port(int kind, int gpu) {
    const auto [it, added] = ports_.try_emplace({kind, gpu}, static_cast<int>(capacity_.size()));
    if (added)
      capacity_.push_back(kind < 2 ? fabric_.nvlink_gpu_bw() : kind < 4 ? fabric_.nic_bw : shared_ib_);
    return it->second;
  }

  // Max-min fair rates of the transfers past their latency: fill the tightest port, freeze its flows, repeat.
  void share() {
    std::vector<double> left = capacity_;
    std::vector<Transfer*> open;
    for (Transfer& t : live_)
      if (t.ready <= now_) open.push_back(&t);
    while (!open.empty()) {
      std::vector<int> users(capacity_.size(), 0);
      for (const Transfer* t : open)
        for (int p : t->ports) ++users[p];
      int tight = -1;
      for (std::size_t p = 0; p < users.size(); ++p)
        if (users[p] > 0 && (tight < 0 || left[p] / users[p] < left[tight] / users[tight]))
          tight = static_cast<int>(p);
      const double rate = left[tight] / users[tight];
      std::erase_if(open, [&](Transfer* t) {
        if (std::find(t->ports.begin(), t->ports.end(), tight) == t->ports.end()) return false;
        t->rate = rate;
        for (int p : t->ports) left[p] -= rate;
        return true;
      });
    }
  }

  FabricParams fabric_;
  double shared_ib_;
  double now_ = 0;
  double largest_ = 0;
  std::vector<Transfer> live_;
  std::vector<Flow> finished_;
  std::array<double, 2> carried_{0, 0};
  std::map<std::pair<int, int>, int> ports_;
  std::vector<double> capacity_;
};

}  // namespace nvlsim::test
