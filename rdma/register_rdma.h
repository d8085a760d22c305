#pragma once
#include "harness/registry.h"

namespace railgauge {
// Adds every rdma benchmark to the registry, in the order `railgauge list` shows them.
void register_rdma(Registry &registry);
} // namespace railgauge
