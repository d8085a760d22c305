#pragma once
// The exit status of every railgauge command, one table (also in `--help` and the README), so
// that a script tells "the node failed" from "the input was wrong" from "railgauge broke".
#include <string_view>

namespace railgauge {

enum class ExitStatus : int {
  ok = 0,        // run: every point ok or waived; check: pass; the others: done
  problems = 1,  // run: a point failed or errored; check: warn; import: lines it could not read
  fail = 2,      // check: a fail verdict (drain the node)
  internal = 3,  // railgauge or its output failed (disk full, a lost rank, a bug)
  bad_input = 4, // nothing ran or was judged: the message says what, where and how to fix it
  hung = 5,      // run: a point outlived --point-timeout, or SIGTERM/SIGINT stopped the run
};

constexpr int code(ExitStatus s) { return static_cast<int>(s); }

// The table as `--help` prints it.
inline constexpr std::string_view kExitStatusHelp =
    "Exit status: 0 ok (check: pass); 1 problems (run: a point failed or errored, or --expect "
    "hardware is missing; check: warn; "
    "import: unreadable lines); 2 check: fail; 3 railgauge or its output failed; 4 bad input, "
    "nothing done; 5 run: a point hung and the watchdog ended it, or a signal (SIGTERM, SIGINT) "
    "stopped the run";

} // namespace railgauge
