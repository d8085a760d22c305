#pragma once
// `railgauge report RUN...|COMPARISON.json [--check CHECK.json] --html FILE --markdown FILE`.
// Exit status: 0 written, 3 crashed, 4 input error (see analysis/commands/check_command.h).
namespace CLI {
class App;
}

namespace railgauge::analysis {

void add_report_command(CLI::App &app, int &exit_code);

} // namespace railgauge::analysis
