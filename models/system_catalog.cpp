#include "models/system_catalog.hpp"

#include <fmt/format.h>

#include <array>

#include "models/input_error.hpp"

namespace nvlsim {

namespace {

constexpr std::string_view kOneZone = "does not apply: one zone";
constexpr std::string_view kSameAsNvl72 = "issue 18 (the same NVLink domain as GB200 NVL72)";
constexpr std::string_view kNoPartialOperation =
    "seed nvl72-to-nvl576-evolution §3.2: partial operation is new in NVLink 6; on NVLink 5 a failed tray "
    "leaves its domain's block unusable (DOMAIN.md §4)";

// DOMAIN.md is the project's domain notes; "issue 18" is the issue's own list of facts; the seed is the
// source document both cite. Bandwidths are bytes/s each way.
const std::array<SystemFacts, 5> kSystems = {{
    {"gb200-nvl72",
     "GB200 NVL72",
     {4, "DOMAIN.md §1 (18 trays × (2 Grace + 4 GPUs))"},
     {18, "DOMAIN.md §1"},
     {1, "DOMAIN.md §1 (one rack, one NVLink domain)"},
     {1, "DOMAIN.md §1 (K(18,72): one hop between any two GPUs)"},
     {18, "DOMAIN.md §1 (one NVLink 5 link per NVSwitch chip)"},
     {50e9, "DOMAIN.md §1 (100 GB/s bidirectional per link, 1.8 TB/s per GPU)"},
     {0, kOneZone},
     {50e9, "DOMAIN.md §1 (one ConnectX-7 400 Gb/s per GPU)"},
     {120, "DOMAIN.md §1 (~120–132 kW; the low end)"},
     {3e6, "DOMAIN.md §1 (~US$2–3.1M, third-party; a parameter)"},
     {false, kNoPartialOperation}},
    {"gb300-nvl72",
     "GB300 NVL72",
     {4, kSameAsNvl72},
     {18, kSameAsNvl72},
     {1, kSameAsNvl72},
     {1, kSameAsNvl72},
     {18, kSameAsNvl72},
     {50e9, kSameAsNvl72},
     {0, kOneZone},
     {100e9, "DOMAIN.md §1, issue 18 (ConnectX-8 800 Gb/s per GPU)"},
     {142, "DOMAIN.md §1 (GB300 up to ~142 kW)"},
     {3.5e6,
      "assumed: no source prices it; GB200 NVL72's US$3M plus a sixth for Blackwell Ultra and ConnectX-8"},
     {false, kNoPartialOperation}},
    {"gb200-nvl36x2",
     "GB200 NVL36x2",
     {4, "DOMAIN.md §1 (the GB200 compute tray)"},
     {18, "issue 18 (one 72-GPU domain of two racks of 9 compute trays)"},
     {2, "issue 18"},
     {1, "assumed: the two racks' switches, joined by NVLink cables, modelled as one non-blocking domain"},
     {18, "assumed: GB200 NVL72's GPUs and NVLink 5 (DOMAIN.md §1)"},
     {50e9, "assumed: GB200 NVL72's GPUs and NVLink 5 (DOMAIN.md §1)"},
     {0, kOneZone},
     {50e9, "assumed: GB200 NVL72's ConnectX-7 (DOMAIN.md §1)"},
     {66, "assumed: half of gb200-nvl72's 120 kW plus a tenth for the switch trays each rack carries"},
     {1.65e6, "assumed: half of gb200-nvl72's US$3M plus a tenth for its switch trays and cross-rack cables"},
     {false, kNoPartialOperation}},
    {"vr-nvl144",
     "Vera Rubin NVL144",
     {4, "assumed: NVL72's trays of 4 (72 packages, 144 dies, per rack)"},
     {18, "issue 18 (260 TB/s = 72 GPUs × 3.6 TB/s: one domain of 72 packages); 18 trays assumed as NVL72"},
     {1, "issue 18: the announced 260 TB/s and 28.8 TB/s describe one rack; the two-rack NVL144 was dropped"},
     {1, "issue 18 (NVLink 6: one NVLink domain)"},
     {36,
      "assumed: NVLink 6 doubles NVLink 5's lanes (seed nvl72-to-nvl576-evolution §3.2): twice the links"},
     {50e9, "issue 18 (3.6 TB/s per GPU = 36 links × 100 GB/s bidirectional)"},
     {0, kOneZone},
     {200e9, "issue 18 (ConnectX-9 1.6 Tb/s per GPU; 28.8 TB/s = 72 × 200 GB/s both ways, as NVLink's 260)"},
     {200, "issue 18 (~200 kW per rack; seed §7)"},
     {4.5e6, "assumed: no source prices it; 1.5 × gb200-nvl72's US$3M"},
     {true,
      "seed nvl72-to-nvl576-evolution §3.2, DOMAIN.md §4 (NVLink 6: a failed tray is isolated, the rest "
      "of the domain runs degraded)"}},
    {"vr-ultra-nvl576",
     "Rubin Ultra NVL576 (Kyber)",
     {2, "issue 18 (144 packages of 4 dies in 4 zones × 18 trays: 2 per tray)"},
     {72, "issue 18 (4 zones of 18 compute trays)"},
     {1, "issue 18 (one Kyber rack; a PCB midplane joins its zones)"},
     {4, "issue 18"},
     {72, "assumed: no source gives it; twice a Rubin package's 36 (four dies against two)"},
     {50e9, "assumed: NVLink 6's per-link rate, as vr-nvl144"},
     {1.8e12,
      "assumed: the midplane's lanes limit it (issue 18), no source gives a figure; half a GPU's NVLink"},
     {200e9, "assumed: one ConnectX-9 1.6 Tb/s per package, as vr-nvl144"},
     {400, "issue 18 (400+ kW per rack; seed §7)"},
     {12e6,
      "seed nvl72-to-nvl576-evolution §2.5: ~US$6M/yr depreciation against ~US$3M/yr for two NVL72s, "
      "so 4 × gb200-nvl72's US$3M"},
     {true, "seed nvl72-to-nvl576-evolution §3.2 (NVLink 6; \"a must-have\" for a domain of 576 dies)"}},
}};

}  // namespace

std::span<const SystemFacts> systems() {
  return kSystems;
}

const SystemFacts& default_system() {
  return kSystems.front();
}

const SystemFacts& system_named(std::string_view name) {
  for (const SystemFacts& s : kSystems)
    if (s.name == name) return s;
  throw InputError(fmt::format("unknown system \"{}\" (known: {})", name, system_names()));
}

std::string system_names() {
  std::string names;
  for (const SystemFacts& s : kSystems) names += (names.empty() ? "" : ", ") + std::string(s.name);
  return names;
}

}  // namespace nvlsim
