#pragma once
// Link figures of the two planes. Defaults from shared DOMAIN.md §1–2 (NVIDIA GB200 NVL72 and
// DGX SuperPOD reference architecture); all are parameters a platform file can change.

namespace nvlsim {

struct FabricParams {
  int nvlink_links_per_gpu = 18;     // one NVLink 5 link to each NVSwitch chip
  double nvlink_link_bw = 50e9;      // bytes/s each way per link (100 GB/s bidirectional)
  double nvlink_latency = 0;         // s per port link
  double nic_bw = 50e9;              // bytes/s each way: ConnectX-7, 400 Gb/s
  double ib_latency = 0;             // s per link
  double ib_oversubscription = 1.0;  // leaf uplink capacity = downlink capacity / this
  int ib_switch_radix = 64;          // Quantum-2 QM9700: 64 ports of 400 Gb/s
  bool nvlink_sharp = false;         // NVLink SHARP: NVSwitches reduce in place (all-reduce only)
  double inter_zone_bw = 0;          // bytes/s each way per GPU between a domain's zones; 0 = one zone.
                                     // Recorded, not yet modelled: the replay sees one NVLink level.

  // Per GPU per direction over NVLink: 18 x 50 GB/s = 900 GB/s.
  double nvlink_gpu_bw() const { return nvlink_links_per_gpu * nvlink_link_bw; }
};

}  // namespace nvlsim
