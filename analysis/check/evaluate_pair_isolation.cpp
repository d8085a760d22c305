// The built-in rule `pair-isolation` over run directories (pair_isolation.h): each NIC pair
// matrix's findings on the parts they name, and a pass tallied on every other part it measured.
#include <set>

#include "analysis/check/evaluate.h"
#include "analysis/check/evaluator.h"
#include "analysis/check/pair_isolation.h"

namespace railgauge::check {

void Evaluator::pair_isolation_rule() {
  bool any = false;
  for (const auto &run : runs_.runs)
    for (const auto &r : run.records) {
      auto isolation = pair_isolation(r, run.dir);
      if (!isolation)
        continue;
      any = true;
      std::set<PartKey> found;
      for (auto &[part, f] : isolation->findings) {
        found.insert(part);
        ledger_.add_finding(part, std::move(f));
      }
      for (const auto &part : isolation->judged)
        ledger_.tally(part, kPairIsolationRule, !found.contains(part));
    }
  if (!any)
    return;
  ledger_.flush_tallies(kPairIsolationRule);
  result_.rule_categories[kPairIsolationRule] = "nic";
}

} // namespace railgauge::check
