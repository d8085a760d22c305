#pragma once
// Every family's benchmarks in one registry: the command line's (railgauge_cli), which links the
// families; the core (registry.h) knows none of them.
#include "harness/registry.h"

namespace railgauge {

// All families, in the order `railgauge list` shows them.
Registry make_registry();

} // namespace railgauge
