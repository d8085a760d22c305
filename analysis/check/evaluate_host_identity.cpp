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

Finding one_machine_per_host_finding(const analysis::SharedHostName &shared) {
  std::string machines;
  for (const auto &[id, dir] : shared.machines)
    machines += fmt::format("{}machine-id {} (run {})", machines.empty() ? "" : ", ", id, dir);
  return built_in_missing(
      kOneMachinePerHostRule, Level::fail, "machines reporting this host name",
      fmt::format("{} machines report host name '{}': {}; their records are judged as one "
                  "node's, which cannot say which machine passed; give each machine a host name "
                  "of its own (hostnamectl set-hostname, or Slurm's NodeName) and run again",
                  shared.machines.size(), shared.host, machines));
}

void Evaluator::one_machine_per_host_rule() {
  const auto shared = analysis::shared_host_names(runs_);
  if (shared.empty())
    return;
  result_.rule_categories[kOneMachinePerHostRule] = "health";
  for (const auto &s : shared)
    ledger_.add_finding(PartKey{s.host, PartKind::node, ""}, one_machine_per_host_finding(s));
}

} // namespace railgauge::check
