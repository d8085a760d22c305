// The built-in rule `pair-isolation` over run directories (pair_isolation.h): each NIC pair
// matrix's findings on the parts they name, and a tally on every part it measured.
#include <map>
#include <string>

#include "analysis/check/evaluate.h"
#include "analysis/check/evaluator.h"
#include "analysis/check/pair_isolation.h"

namespace railgauge::check {

void Evaluator::pair_isolation_rule() {
  // By run id, each host's own directory of that run among the runs judged.
  std::map<std::string, std::map<std::string, std::string>> run_dirs;
  for (const auto &run : runs_.runs)
    if (!run.records.empty())
      run_dirs[run.records.front().run].try_emplace(run.records.front().host, run.dir);
  bool any = false;
  for (const auto &run : runs_.runs)
    for (const auto &r : run.records) {
      auto isolation = pair_isolation(r, run.dir, run_dirs[r.run]);
      if (!isolation)
        continue;
      any = true;
      for (auto &[part, f] : isolation->findings)
        ledger_.add_finding(part, std::move(f));
      for (const auto &[part, passed] : isolation->tallies)
        ledger_.tally(part, kPairIsolationRule, passed);
    }
  if (!any)
    return;
  ledger_.flush_tallies(kPairIsolationRule);
  result_.rule_categories[kPairIsolationRule] = "nic";
}

} // namespace railgauge::check
