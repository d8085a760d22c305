#pragma once
#include "harness/registry.h"

namespace railgauge {
// Adds every memory benchmark to the registry, in the order `railgauge list` shows them.
void register_memory(Registry &registry);
} // namespace railgauge
