#pragma once
// What the machine running a command looks like now, as a run.json would hold it ({"host",
// "inventory"}). Given by the caller that may touch hardware (the command line), so that the
// analysis library itself never does: `check --inventory-only` without runs judges it.
#include <functional>

#include <nlohmann/json.hpp>

namespace railgauge::analysis {

using MachineSnapshot = std::function<nlohmann::json()>;

} // namespace railgauge::analysis
