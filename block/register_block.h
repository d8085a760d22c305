#pragma once
#include "harness/registry.h"

namespace railgauge {
// Adds the composite benchmarks (block.*) to the registry: a transformer block built from the
// gemm family's shapes and the collectives family's MPI session.
void register_block(Registry &registry);
} // namespace railgauge
