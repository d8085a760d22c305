#pragma once
#include <memory>
#include <string>

#include "harness/registry.h"

namespace railgauge {
// Adds every rdma benchmark to the registry, in the order `railgauge list` shows them.
// `run_dir`: where the run directory will be, once made (the pair matrices' coverage ledger).
void register_rdma(Registry &registry, std::shared_ptr<const std::string> run_dir = {});
} // namespace railgauge
