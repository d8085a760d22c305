#pragma once
// `railgauge calibrate RUN... --out DIR`: fits model coefficients from run directories and
// writes coefficients.json (railgauge.coefficients/1), calculon_system.json,
// astra_network.yml, fit_report.json and fit_report.md into DIR (docs/calibrate.md).
// Exit status: 0 written, 2 bad input (nothing written), 3 an internal check failed.
namespace CLI {
class App;
}

namespace railgauge::analysis {

void add_calibrate_command(CLI::App &app, int &exit_code);

} // namespace railgauge::analysis
