#pragma once
// The exit status of every railgauge command, one table (also in `--help` and
// docs/reliability.md), so that a script tells "the node failed" from "the input was wrong" from
// "railgauge broke".
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace railgauge {

enum class ExitStatus : int {
  ok = 0,        // run: every point ok or waived; check: pass; the others: done
  problems = 1,  // run: a point failed, errored or was noisier than its suite's noise_bound
                 // (after its noise_retries);
                 // check: warn; import: lines it could not read
  fail = 2,      // check: a fail verdict (drain the node); run: hardware --expect names is missing
  internal = 3,  // railgauge or its output failed (disk full, a lost rank, a bug)
  bad_input = 4, // nothing ran or was judged: the message says what, where and how to fix it
  hung = 5,      // run: a point outlived --point-timeout, or SIGTERM/SIGINT stopped the run
};

constexpr int code(ExitStatus s) { return static_cast<int>(s); }

// The one table: every status, its name and what it means. docs/reliability.md's table (the
// docs' one copy, "Exit statuses") and the `--help` footer are made from it
// (`railgauge exit-statuses --format markdown`), and tests/exit_status_docs_test.py holds them
// to it.
struct ExitStatusRow {
  ExitStatus status;
  std::string_view name;
  std::string_view meaning;
};

inline constexpr ExitStatusRow kExitStatuses[] = {
    {ExitStatus::ok, "ok", "done: every point `ok` or `waived`; `check`: pass"},
    {ExitStatus::problems, "problems",
     "problems: a point `failed` or `error`, or noisier than its suite's `noise_bound`; "
     "`check`: warn; `import`: lines it could not read"},
    {ExitStatus::fail, "fail",
     "`check` (and `burnin`): fail (the node goes on the drain list); `run`: hardware `--expect` "
     "names is missing (`burnin` expects at least one GPU)"},
    {ExitStatus::internal, "internal",
     "railgauge or its output failed (disk full, an output that cannot be written, a lost rank, "
     "a bug)"},
    {ExitStatus::bad_input, "bad_input",
     "bad input: nothing ran or was judged; the message says what, where, and how to fix it"},
    {ExitStatus::hung, "hung",
     "a point outlived `--point-timeout` and the watchdog ended the run, or SIGTERM/SIGINT "
     "stopped it (run.json `interrupted`; the stderr line gives the `--resume` command)"},
};

// "Exit status:" then a row per status, its code and meaning: `railgauge exit-statuses` and the
// footer of `railgauge --help`.
std::string exit_status_help();
// Where every other command's `--help` sends its reader, rather than repeating the table.
inline constexpr std::string_view kExitStatusReference =
    "Exit status: `railgauge exit-statuses` prints the table (docs/reliability.md).";
std::string exit_status_reference();
// A command's `--help` footer: its examples ({command line, what it does}), then where the exit
// statuses are, printed once by `railgauge exit-statuses` rather than in every command's help.
std::string examples_help(const std::vector<std::pair<std::string, std::string>> &examples);
// The markdown table (| status | meaning |) of docs/reliability.md.
std::string exit_status_markdown();

} // namespace railgauge
