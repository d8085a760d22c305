#pragma once
#include "harness/registry.h"

namespace railgauge {
// Adds every gemm benchmark to the registry, in the order `railgauge list` shows them.
void register_gemm(Registry &registry);
} // namespace railgauge
