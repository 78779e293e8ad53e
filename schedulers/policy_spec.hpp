#pragma once
// A policy spec taken apart ("sub-block:segment=8" -> name "sub-block", parameter segment=8), typed
// against the policy's declared parameters, and the machine context every policy factory receives.

#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "models/cluster_shape.hpp"
#include "schedulers/policy_params.hpp"
#include "schedulers/slurm_topology.hpp"
#include "schedulers/slurm_version.hpp"

namespace nvlsim {

// What a policy may need to know about the machine besides the free/busy state.
struct PolicyContext {
  ClusterShape shape;
  // InfiniBand leaf grouping for "tree" without a topology: leaf switch j holds trays
  // [j * trays_per_leaf, (j + 1) * trays_per_leaf); spine groups join leaves_per_group leaves (0 = all).
  int trays_per_leaf = 32;
  int leaves_per_group = 0;
  // Slurm node name of each tray, for reading a topology file; empty = trays in order of appearance.
  std::vector<std::string> node_names{};
  // A Slurm topology.conf / topology.yaml; block policies use its blocks, "tree" its switches.
  std::optional<SlurmTopology> topology{};
  // The Slurm release whose placement rules the policy reproduces (--slurm-version).
  SlurmVersion slurm_version = kDefaultSlurmVersion;
};

struct PolicyParam {
  std::string key;
  std::string value;
};

struct PolicySpec {
  std::string text;  // as given; it becomes the policy's name
  std::string name;
  std::vector<PolicyParam> params;  // in the order given
};

// Splits "NAME" or "NAME:key=value:key=value". Throws InputError naming the spec when the name is empty,
// a parameter is not key=value, or a key repeats.
PolicySpec parse_policy_spec(std::string_view text);

class PlacementPolicy;
struct PolicyConfig;

// A registered policy: one per policy file, listed in policy_registry.cpp.
struct PolicyType {
  std::string_view name;
  std::string_view summary;  // one line for --help
  std::span<const ParamDecl> params;
  std::unique_ptr<PlacementPolicy> (*make)(const PolicyConfig&, const PolicyContext&);
};

// A policy to build: its type and typed parameters, from a spec or a policy file.
struct PolicyConfig {
  std::string text;  // as given, or as a policy file spells it; it becomes the policy's name
  const PolicyType* type = nullptr;
  ParamValues params;

  // Equal for the same policy whatever the order of its parameters, and whether defaults were written.
  std::string identity() const;
};

}  // namespace nvlsim
