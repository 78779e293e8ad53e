#include "models/failure_event.hpp"

namespace nvlsim {

std::string_view to_string(Component c) {
  switch (c) {
    case Component::gpu:
      return "gpu";
    case Component::tray:
      return "tray";
    case Component::nvswitch:
      return "nvswitch";
    case Component::nvlink:
      return "nvlink";
    case Component::nic:
      return "nic";
    case Component::rack:
      return "rack";
  }
  return "?";
}

std::optional<Component> parse_component(std::string_view text) {
  for (Component c : kComponents)
    if (to_string(c) == text) return c;
  return std::nullopt;
}

int component_count(Component c, const ClusterShape& shape, int switches) {
  switch (c) {
    case Component::gpu:
    case Component::nic:
      return shape.gpus();
    case Component::tray:
      return shape.trays();
    case Component::nvswitch:
      return shape.domains * switches;
    case Component::nvlink:
      return shape.gpus() * switches;
    case Component::rack:
      return shape.racks();
  }
  return 0;
}

bool takes_gpus_down(Component c) {
  return c != Component::nvswitch && c != Component::nvlink;
}

std::vector<int> gpus_taken_down(Component c, int id, const ClusterShape& shape) {
  std::vector<int> gpus;
  const auto range = [&gpus](int first, int count) {
    for (int g = first; g < first + count; ++g) gpus.push_back(g);
  };
  switch (c) {
    case Component::gpu:
    case Component::nic:  // the GPU loses its only scale-out port; Slurm drains it with its node's GRES
      gpus.push_back(id);
      break;
    case Component::tray:
      range(shape.first_gpu_of_tray(id), shape.gpus_per_tray);
      break;
    case Component::rack:  // a domain's racks hold consecutive trays, so rack k starts at GPU k x its GPUs
      range(id * shape.gpus_per_rack(), shape.gpus_per_rack());
      break;
    case Component::nvswitch:
    case Component::nvlink:
      break;
  }
  return gpus;
}

}  // namespace nvlsim
