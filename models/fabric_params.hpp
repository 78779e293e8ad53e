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
  // NVLink SHARP: NCCL may run a domain's all-reduce as NVLS (on by default on NVLink 5 and 6 systems).
  bool nvlink_sharp = true;
  // What NCCL reaches of the line rates (DOMAIN.md §7): 40.1 of 50 GB/s per NVLink in NCCL's own tuning
  // model; NVLS's measured bus bandwidth, 835-847 GB/s for 8 and 72 GPUs, of 900; 48 of 50 GB/s per
  // NDR NIC (nccl-tests, and NCCL's tuning model: 96 for 800G).
  double nvlink_efficiency = 0.80;
  double nvls_efficiency = 0.94;
  double nic_efficiency = 0.96;
  // NICs of a domain NCCL's all-reduce uses between domains. Assumed: 8 is the count whose tree matches
  // the 20-rack NCCL 2.26 figure (203 GB/s); NCCL 2.27.3 and later use up to 16 on GB200.
  int nccl_nics_per_domain = 8;
  // A domain with zones (NVL576) joins them through a midplane: each zone has one link onto it, of
  // inter_zone_bw bytes/s each way for each of the zone's gpus_per_zone GPUs (docs/model.md, "Zones").
  // 0 and 0 with one zone per domain.
  double inter_zone_bw = 0;
  int gpus_per_zone = 0;

  // Per GPU per direction over NVLink: 18 x 50 GB/s = 900 GB/s.
  double nvlink_gpu_bw() const { return nvlink_links_per_gpu * nvlink_link_bw; }
  // Bytes/s each way of a zone's midplane link.
  double zone_link_bw() const { return inter_zone_bw * gpus_per_zone; }
};

}  // namespace nvlsim
