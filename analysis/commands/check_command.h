#pragma once
// `railgauge check --rules NAME|FILE RUN...` and the exit statuses every verdict command shares.
// `check --rules NAME --inventory-only` (no runs) judges this machine's inventory now: the health
// rules only, in a second or two, for a Slurm prolog or an NHC check (docs/launch.md).
//
// Exit status of check: 0 pass, 1 warn, 2 fail (GCM's OK/WARN/CRITICAL), 3 crashed (as every
// railgauge command), 4 input error: the rules, the runs or the flags could not be used, so
// nothing was judged. compare and report use 0, 3 and 4 the same way.
#include <string>
#include <vector>

#include "analysis/machine_snapshot.h"

namespace CLI {
class App;
}

namespace railgauge::analysis {

void add_check_command(CLI::App &app, int &exit_code, MachineSnapshot this_machine);

// `railgauge check --rules RULES RUN...` as the command judges them, for a command that composes
// it (burnin): the table on standard output, the profile auto picks on standard error, an input
// error said there too; the exit status check would give.
int check_runs(const std::vector<std::string> &runs, const std::string &rules);

// Reads `rules` (a profile name or a rules file; auto needs none) as check_runs would, throwing
// the InputError check would give: for a command that judges only after it has measured
// (burnin), so that a misspelt profile is refused before the measurement, not after it.
void refuse_unreadable_rules(const std::string &rules);

} // namespace railgauge::analysis
