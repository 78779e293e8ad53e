#include "sim/core/hardware_health.hpp"

#include <algorithm>

#include "models/nvlink_domain_graph.hpp"

namespace nvlsim {

HardwareHealth::HardwareHealth(const PlatformSpec& platform, Network& network)
    : platform_(platform),
      network_(network),
      switches_(platform.fabric.nvlink_links_per_gpu),
      down_count_(platform.shape.gpus(), 0) {}

std::vector<int> HardwareHealth::fail(const FailureEvent& failure) {
  if (takes_gpus_down(failure.component)) return change_gpus(failure, +1);
  change_nvlink(failure, +1);
  return {};
}

std::vector<int> HardwareHealth::repair(const FailureEvent& failure) {
  if (takes_gpus_down(failure.component)) return change_gpus(failure, -1);
  change_nvlink(failure, -1);
  return {};
}

std::vector<int> HardwareHealth::change_gpus(const FailureEvent& failure, int delta) {
  const ClusterShape& shape = platform_.shape;
  std::vector<int> changed;
  for (int gpu : gpus_taken_down(failure.component, failure.id, shape)) {
    const int before = down_count_[gpu];
    down_count_[gpu] += delta;
    if ((before == 0) != (down_count_[gpu] == 0)) changed.push_back(gpu);
  }
  for (int gpu : changed) {
    const int tray = shape.tray_of_gpu(gpu);
    const int first = shape.first_gpu_of_tray(tray);
    const bool down =
        std::any_of(down_count_.begin() + first, down_count_.begin() + first + shape.gpus_per_tray,
                    [](int n) { return n > 0; });
    const auto at = std::lower_bound(down_trays_.begin(), down_trays_.end(), tray);
    const bool listed = at != down_trays_.end() && *at == tray;
    if (down && !listed) down_trays_.insert(at, tray);
    if (!down && listed) down_trays_.erase(at);
  }
  return changed;
}

void HardwareHealth::change_nvlink(const FailureEvent& failure, int delta) {
  const int domain = failure.component == Component::nvswitch
                         ? failure.id / switches_
                         : platform_.shape.domain_of_gpu(failure.id / switches_);
  if (failure.component == Component::nvswitch) {
    auto& counts = failed_switches_[domain];
    counts.resize(switches_, 0);
    counts[failure.id % switches_] += delta;
  } else {
    failed_links_[failure.id] += delta;
  }
  apply_domain_bandwidth(domain);
}

void HardwareHealth::apply_domain_bandwidth(int domain) {
  const ClusterShape& shape = platform_.shape;
  const int per_domain = shape.gpus_per_domain();
  const int first = domain * per_domain;
  NvlinkDomainGraph graph(per_domain, switches_, platform_.fabric.nvlink_link_bw);
  if (const auto found = failed_switches_.find(domain); found != failed_switches_.end()) {
    for (int k = 0; k < switches_; ++k)
      if (found->second[k] > 0) graph.fail_switch(k);
  }
  for (const auto& [link, count] : failed_links_) {
    const int gpu = link / switches_;
    if (count > 0 && gpu >= first && gpu < first + per_domain) graph.fail_link(gpu - first, link % switches_);
  }
  for (int local = 0; local < per_domain; ++local)
    network_.set_nvlink_bandwidth(first + local, graph.gpu_bandwidth(local));
}

}  // namespace nvlsim
