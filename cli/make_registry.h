#pragma once
// Every family's benchmarks in one registry: the command line's (railgauge_cli), which links the
// families; the core (registry.h) knows none of them.
#include <memory>
#include <string>

#include "harness/registry.h"

namespace railgauge {

// All families, in the order `railgauge list` shows them. `run_dir`: where the run directory
// will be once measure_entries has made it (the pair matrices write their coverage ledger there).
Registry make_registry(std::shared_ptr<const std::string> run_dir = {});

} // namespace railgauge
