#pragma once
// The subcommands that read run directories and never touch hardware: check, compare, report,
// calibrate, import. Each lives in its own folder under analysis/ and adds itself here; its
// callback runs the command and stores the exit status in `exit_code`.
#include <functional>

#include <nlohmann/json.hpp>

namespace CLI {
class App;
}

namespace railgauge::analysis {

// What the machine running the command looks like now, as a run.json would hold it ({"host",
// "inventory"}). Given by the caller that may touch hardware (the CLI), so that the analysis
// library itself never does: `check --inventory-only` without runs judges it.
using MachineSnapshot = std::function<nlohmann::json()>;

void add_analysis_commands(CLI::App &app, int &exit_code, MachineSnapshot this_machine);

} // namespace railgauge::analysis
