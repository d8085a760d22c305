#pragma once
#include "harness/registry.h"

namespace railgauge {
// Adds every collectives benchmark to the registry, in the order `railgauge list` shows them.
void register_collectives(Registry &registry);
} // namespace railgauge
