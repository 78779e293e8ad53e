#pragma once
// A run that shares GPUs (--gpu-sharing) must not give a fractional job to a policy that places whole GPUs
// only: refused before any replay starts, rather than failing inside one.

#include <memory>
#include <span>
#include <vector>

#include "schedulers/placement_policy.hpp"
#include "sim/core/gpu_sharing.hpp"
#include "workloads/job.hpp"

namespace nvlsim {

// Throws InputError naming the flag and the first policy that cannot place shares, when `sharing` is on
// and some job asks for part of a GPU. Without such a job the setting changes nothing, so any policy runs.
void check_gpu_sharing(std::span<const std::unique_ptr<PlacementPolicy>> policies, std::span<const Job> jobs,
                       const SharingConfig& sharing);

}  // namespace nvlsim
