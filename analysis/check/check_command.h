#pragma once
// `railgauge check --rules FILE RUN...` and the exit statuses every verdict command shares.
//
// Exit status of check: 0 pass, 1 warn, 2 fail (GCM's OK/WARN/CRITICAL), 3 crashed (as every
// railgauge command), 4 input error: the rules, the runs or the flags could not be used, so
// nothing was judged. compare and report use 0, 3 and 4 the same way.
namespace CLI {
class App;
}

namespace railgauge::analysis {

void add_check_command(CLI::App &app, int &exit_code);

} // namespace railgauge::analysis
