#pragma once
// The subcommands that read run directories and never touch hardware: check, compare, report,
// calibrate, import. Each lives in its own folder under analysis/ and adds itself here; its
// callback runs the command and stores the exit status in `exit_code`.
namespace CLI {
class App;
}

namespace railgauge::analysis {

void add_analysis_commands(CLI::App &app, int &exit_code);

} // namespace railgauge::analysis
