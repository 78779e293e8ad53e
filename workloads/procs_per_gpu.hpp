#pragma once
// CPU traces on GPU platforms: how many of a trace's processors make one GPU.

#include "workloads/swf_reader.hpp"

namespace nvlsim {

// --fit: the smallest K such that ceil(P / K) <= platform_gpus, with P the larger of the header's MaxProcs
// (scaling the trace's machine onto the platform keeps its load) and the largest job (uncleaned logs may
// hold jobs larger than MaxProcs). 1 when everything already fits; InputError when K would not fit an int.
int fit_procs_per_gpu(const SwfTrace& trace, int platform_gpus);

}  // namespace nvlsim
