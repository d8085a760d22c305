#include "cli/analysis_commands.h"

#include <utility>

#include <CLI/CLI.hpp>

#include "analysis/commands/calibrate_command.h"
#include "analysis/commands/check_command.h"
#include "analysis/commands/compare_command.h"
#include "analysis/commands/db_command.h"
#include "analysis/commands/import_commands.h"
#include "analysis/commands/report_command.h"

namespace railgauge::analysis {

void add_analysis_commands(CLI::App &app, int &exit_code, MachineSnapshot this_machine) {
  add_check_command(app, exit_code, std::move(this_machine));
  add_compare_command(app, exit_code);
  add_report_command(app, exit_code);
  add_calibrate_command(app, exit_code);
  add_import_nvbandwidth_command(app, exit_code);
  add_import_nccl_tests_command(app, exit_code);
  add_import_perftest_command(app, exit_code);
  history::add_db_command(app, exit_code);
}

} // namespace railgauge::analysis
