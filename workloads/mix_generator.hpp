#pragma once
// `nvlsim workload mix`: a synthetic mix of AI jobs as SWF records, with every parameter in the header.

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "workloads/swf_record.hpp"

namespace nvlsim {

struct MixSize {
  int gpus = 0;
  double weight = 0;  // relative, inside its class
};

struct MixClass {
  std::string name;  // a class of the run's class table (workloads/job_class.hpp)
  double share = 0;  // of the jobs
  std::vector<MixSize> sizes;
  double median_hours = 1;  // of the log-normal run time
  double sigma = 1;         // of the run time's logarithm
  // Of the class's jobs, the share that asks for part of one GPU instead of a size: 1 GPU and a
  // gpu_milli drawn from kFractionalGpuMilli (SWF field 19).
  double fractional_share = 0;
};

// The parts of one GPU a fractional job asks, equally likely: 10% to 90% in steps of 10%, the steps of an
// MPS active-thread percentage and of Slurm's gres/mps on GPUs of count 100 (docs/workloads.md).
inline constexpr std::array<std::int64_t, 9> kFractionalGpuMilli = {100, 200, 300, 400, 500,
                                                                    600, 700, 800, 900};

// inference 1-4 GPUs, finetune 8-32 GPUs (45% of the jobs: DOMAIN.md §6's "over 40%"), pretrain 64-1152
// GPUs; shares, sizes and run times are documented and justified in docs/workloads.md.
std::vector<MixClass> default_mix_classes();

struct MixParams {
  int jobs = 0;     // > 0: this many jobs
  double days = 0;  // else: jobs arrive over this many days
  int gpus = 576;   // the machine the load is for
  double load = 0.9;
  std::uint64_t seed = 1;
  double diurnal = 0;       // 0-1: arrival rate swings by this fraction over a day, lowest at midnight
  double overestimate = 2;  // requested time = run time x this, rounded up to a minute
  // In [0, 1]: the classes' job shares are reweighted so that finetune jobs (8-32 GPUs) are expected to
  // carry this share of the offered GPU-hours, the other classes keeping their relative work.
  std::optional<double> finetune_work_share;
  // In [0, 1]: the share of inference jobs that ask for part of one GPU (MixClass::fractional_share). 0
  // draws nothing more, so the mix is the one without the option, byte for byte.
  double fractional_share = 0;
  std::vector<MixClass> classes = default_mix_classes();
};

// A class's expected GPU-seconds per job on a machine of `gpus` GPUs (its sizes above them left out; the
// run time's 60 s floor included). A fractional job counts its whole GPU, as it is replayed today.
double expected_job_work(const MixClass& c, int gpus);

// The parameters of the shipped workloads/mix.swf: nvl72x64, one week, load 0.9, seed 1.
MixParams shipped_mix_params();

struct GeneratedMix {
  std::vector<std::pair<std::string, std::string>> header;  // "; Key: value" lines, in order
  std::vector<SwfRecord> records;                           // in submit order, numbered from 1
};

// Sizes above params.gpus are left out (a class left with none gets params.gpus). Run times are
// log-normal, at least 60 s, whole seconds. The jobs' offered work W (GPU-seconds) and the arrival window
// T satisfy W = load x gpus x T: with `jobs`, T follows from the drawn work; with `days`, T = days and jobs
// are drawn until W reaches it. Submit times are a Poisson process on [0, T) conditioned on its count
// (with `diurnal`, of rate proportional to 1 - diurnal cos(2 pi t / 1 day)), whole seconds. The class
// goes into the executable number (class index + 1, the header's "Classes:" line maps them), a fraction
// of a GPU into gpu_milli (-1 for whole GPUs). The offered work counts a fractional job's whole GPU.
GeneratedMix generate_mix(const MixParams& params);

}  // namespace nvlsim
