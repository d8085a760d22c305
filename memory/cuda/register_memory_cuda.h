#pragma once
#include "harness/registry.h"

namespace railgauge {
// Adds the HBM benchmarks (memory.hbm_*) to the registry. Always compiled: without CUDA they are
// registered all the same and waive every point with the reason.
void register_memory_cuda(Registry &registry);
} // namespace railgauge
