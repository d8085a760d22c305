#include "analysis/analysis_commands.h"

#include <CLI/CLI.hpp>

namespace railgauge::analysis {

void add_analysis_commands(CLI::App &app, int &exit_code) {
  // One line per command, e.g. add_check_command(app, exit_code);
  (void)app;
  (void)exit_code;
}

} // namespace railgauge::analysis
