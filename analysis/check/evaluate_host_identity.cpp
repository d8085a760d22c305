// The built-in rule `one-machine-per-host` (evaluate.h): runs of more than one machine that
// report one host name (run_machines.h). check judges a node by its host name, so their records
// would be judged as one node's, --latest-per-host would keep one machine's newest run and drop
// the other's, and the drain list would name a host that is two machines.
#include <string>

#include <fmt/format.h>

#include "analysis/check/evaluate.h"
#include "analysis/check/evaluator.h"
#include "analysis/run_machines.h"

namespace railgauge::check {

void Evaluator::one_machine_per_host_rule() {
  const auto shared = analysis::shared_host_names(runs_);
  if (shared.empty())
    return;
  result_.rule_categories[kOneMachinePerHostRule] = "health";
  for (const auto &s : shared) {
    std::string machines;
    for (const auto &[id, dir] : s.machines)
      machines += fmt::format("{}machine-id {} (run {})", machines.empty() ? "" : ", ", id, dir);
    ledger_.add_finding(
        PartKey{s.host, PartKind::node, ""},
        built_in_missing(kOneMachinePerHostRule, Level::fail, "machines reporting this host name",
                         fmt::format("{} machines report host name '{}': {}; their records are "
                                     "judged as one node's, which cannot say which machine "
                                     "passed; give each machine a host name of its own "
                                     "(hostnamectl set-hostname, or Slurm's NodeName) and run "
                                     "again",
                                     s.machines.size(), s.host, machines)));
  }
}

} // namespace railgauge::check
