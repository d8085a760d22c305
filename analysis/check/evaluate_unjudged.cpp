// The built-in rule `nothing-judged` (evaluate.h) over run directories: a node whose ok records
// no rule of the profile judged, and a node whose multi-node records no rule of the profile
// selects (unjudged_nodes.h decides). A node-local profile given a two-node nccl-tests log
// selects none of its records, and every rule it has is then "not covered": without this rule
// that node passed, having been read by nothing; and a two-node run of railgauge's own passed on
// its inventory rules while no rule looked at its collectives.
#include <map>
#include <string>

#include "analysis/check/evaluate.h"
#include "analysis/check/evaluator.h"
#include "analysis/check/unjudged_nodes.h"

namespace railgauge::check {

void Evaluator::nothing_judged_rule() {
  if (rules_.unjudged_nodes == Level::info)
    return; // a profile that says so: judged nothing is not worth a line
  result_.rule_categories[kNothingJudgedRule] = "health";
  std::map<std::string, HeldRecords> held; // by host
  for (const auto &run : runs_.runs) {
    const bool imported = is_imported(run);
    for (const auto &r : run.records)
      if (r.status == Status::ok) // record-status judges the others
        held[r.host].add(rules_, r, imported);
  }
  std::map<std::string, NodeReading> reading; // by host
  const auto not_readings = rules_not_reading_records(rules_);
  for (const auto &[key, p] : ledger_.parts())
    reading[key.host].add(p, not_readings);
  for (const auto &[host, h] : held) {
    auto detail = nothing_judged_detail(rules_, h, reading[host]);
    if (detail.empty())
      continue;
    ledger_.add_finding(PartKey{host, PartKind::node, ""},
                        built_in_missing(kNothingJudgedRule, rules_.unjudged_nodes,
                                         "records of this node", std::move(detail)));
  }
}

} // namespace railgauge::check
