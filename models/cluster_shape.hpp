#pragma once
// The counting shape of an NVL72-style cluster: NVLink domains of trays of GPUs.
// GPU id = domain * gpus_per_domain + index inside the domain; tray id = GPU id / gpus_per_tray.
// A domain may span racks (NVL36x2: 2) and hold zones (NVL576: 4), each of consecutive trays; both divide
// trays_per_domain. Rack k of the machine holds trays [k, k + 1) x trays_per_domain / racks_per_domain.

#include <cstddef>
#include <span>

namespace nvlsim {

struct ClusterShape {
  int domains = 0;
  int trays_per_domain = 18;
  int gpus_per_tray = 4;
  int cpus_per_tray = 144;  // cores: a GB200 compute tray has two 72-core Grace CPUs
  int racks_per_domain = 1;
  int zones_per_domain = 1;

  int gpus_per_domain() const { return trays_per_domain * gpus_per_tray; }
  int trays() const { return domains * trays_per_domain; }
  int gpus() const { return domains * gpus_per_domain(); }
  int racks() const { return domains * racks_per_domain; }
  int gpus_per_rack() const { return gpus_per_domain() / racks_per_domain; }
  int gpus_per_zone() const { return gpus_per_domain() / zones_per_domain; }
  // The GPU's zone, numbered over the whole machine: domain * zones_per_domain + zone in the domain.
  int zone_of_gpu(int gpu) const { return gpu / gpus_per_zone(); }
  int tray_of_gpu(int gpu) const { return gpu / gpus_per_tray; }
  int domain_of_gpu(int gpu) const { return gpu / gpus_per_domain(); }
  int domain_of_tray(int tray) const { return tray / trays_per_domain; }
  int first_gpu_of_tray(int tray) const { return tray * gpus_per_tray; }
  int first_tray_of_domain(int domain) const { return domain * trays_per_domain; }

  // Calls visit(tray, first, end) for each run gpus[first, end) of consecutive entries on one tray, or
  // visit(-1, i, i + 1) for an entry that is no GPU of the machine. A job's GPUs are ascending, so this
  // divides once per tray: dividing for every GPU was a large part of placing and releasing large jobs.
  template <typename Visit>
  void for_each_tray_stretch(std::span<const int> gpus, Visit&& visit) const {
    for (std::size_t first = 0; first < gpus.size();) {
      if (gpus[first] < 0 || gpus[first] >= this->gpus()) {
        visit(-1, first, first + 1);
        ++first;
        continue;
      }
      const int tray = tray_of_gpu(gpus[first]);
      const int begin = first_gpu_of_tray(tray);
      std::size_t end = first + 1;
      while (end < gpus.size() && gpus[end] >= begin && gpus[end] < begin + gpus_per_tray) ++end;
      visit(tray, first, end);
      first = end;
    }
  }

  bool operator==(const ClusterShape&) const = default;
};

}  // namespace nvlsim
