#pragma once
// The subcommands that read run directories and never touch hardware: check, compare, report,
// calibrate, import. Each lives in its own folder under analysis/ and is added here; its
// callback runs the command and stores the exit status in `exit_code`.
#include "analysis/machine_snapshot.h"

namespace CLI {
class App;
}

namespace railgauge::analysis {

void add_analysis_commands(CLI::App &app, int &exit_code, MachineSnapshot this_machine);

} // namespace railgauge::analysis
