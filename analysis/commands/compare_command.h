#pragma once
// `railgauge compare RUN_A RUN_B [...] [--label A --label B]`. Exit status: 0 compared,
// 3 crashed, 4 input error (see analysis/commands/check_command.h).
namespace CLI {
class App;
}

namespace railgauge::analysis {

void add_compare_command(CLI::App &app, int &exit_code);

} // namespace railgauge::analysis
