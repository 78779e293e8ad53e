#pragma once
// The systems nvlsim builds platforms of: one row of facts per system, each figure with where it comes
// from. docs/systems.md prints the table and the choices behind it; tests hold the two together.
//
// A GPU is one package, what CUDA and Slurm count as one device (a Blackwell or Rubin package of two dies,
// a Rubin Ultra package of four): the "72" of GB200 NVL72 counts packages, so per-GPU figures compare
// across systems, while the "144" and "576" of the Rubin names count dies.

#include <span>
#include <string>
#include <string_view>

namespace nvlsim {

// A figure and its source: a section of DOMAIN.md or the issue, or "assumed: why".
template <class T>
struct Sourced {
  T value;
  std::string_view source;
};

struct SystemFacts {
  std::string_view name;   // what --system takes
  std::string_view title;  // the product
  Sourced<int> gpus_per_tray;
  Sourced<int> trays_per_domain;  // compute trays in one NVLink domain
  Sourced<int> racks_per_domain;  // physical racks one NVLink domain spans
  Sourced<int> zones_per_domain;  // regions of one switch hop inside the domain
  Sourced<int> nvlink_links_per_gpu;
  Sourced<double> nvlink_link_bw;  // bytes/s each way per link
  Sourced<double> inter_zone_bw;   // bytes/s each way per GPU between zones; 0 with one zone
  Sourced<double> nic_bw;          // bytes/s each way per GPU
  Sourced<double> rack_power_kw;   // one physical rack
  Sourced<double> rack_price_usd;  // one physical rack
  // NVLink 6's partial operation: a failed compute tray is isolated and the rest of its domain goes on,
  // so under `block` the domain stays a block of its up trays (docs/failures.md).
  Sourced<bool> partial_operation;

  int gpus_per_domain() const { return trays_per_domain.value * gpus_per_tray.value; }
  int gpus_per_rack() const { return gpus_per_domain() / racks_per_domain.value; }
  double nvlink_gpu_bw() const { return nvlink_links_per_gpu.value * nvlink_link_bw.value; }
};

// Every system, the default (gb200-nvl72) first.
std::span<const SystemFacts> systems();

const SystemFacts& default_system();

// Throws InputError "unknown system \"NAME\" (known: a, b, ...)".
const SystemFacts& system_named(std::string_view name);

// "gb200-nvl72, gb300-nvl72, ...", for help texts and messages.
std::string system_names();

}  // namespace nvlsim
