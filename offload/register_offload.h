#pragma once
#include "harness/registry.h"

namespace railgauge {
// Adds every offload benchmark to the registry, in the order `railgauge list` shows them.
void register_offload(Registry &registry);
} // namespace railgauge
