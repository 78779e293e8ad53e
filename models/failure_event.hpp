#pragma once
// What fails, and one failure: the vocabulary shared by the failure model, replay files and the simulator.

#include <optional>
#include <string_view>
#include <vector>

#include "models/cluster_shape.hpp"

namespace nvlsim {

// Ids: gpu = GPU id; tray = GPU id / gpus_per_tray; nvswitch = domain x switches + k;
// nvlink = GPU id x switches + k (the GPU's link to switch k); nic = the GPU id it serves;
// rack = domain x racks_per_domain + r, the physical rack: on NVL72 the domain, on NVL36x2 half of one.
enum class Component { gpu, tray, nvswitch, nvlink, nic, rack };

inline constexpr Component kComponents[] = {Component::gpu,    Component::tray, Component::nvswitch,
                                            Component::nvlink, Component::nic,  Component::rack};

std::string_view to_string(Component c);
std::optional<Component> parse_component(std::string_view text);

// How many components of a kind the cluster has; `switches` = NVSwitch chips per domain.
int component_count(Component c, const ClusterShape& shape, int switches);

// A failed GPU, tray, NIC or rack takes GPUs down and kills the jobs on them; a failed NVSwitch chip or
// NVLink only lowers bandwidth.
bool takes_gpus_down(Component c);
// The GPUs a failure of that kind takes down (empty for NVSwitch chips and NVLinks).
std::vector<int> gpus_taken_down(Component c, int id, const ClusterShape& shape);

struct FailureEvent {
  double time = 0;  // s from the first submission
  Component component = Component::gpu;
  int id = 0;
  double duration = 0;  // s until repaired
};

}  // namespace nvlsim
