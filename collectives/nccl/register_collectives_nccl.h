#pragma once
#include "harness/registry.h"

namespace railgauge::collectives {
// collectives.nccl_<kind> for every kind; waivers when the build has no NCCL.
void register_collectives_nccl(Registry &registry);
} // namespace railgauge::collectives
