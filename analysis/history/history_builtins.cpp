#include "analysis/history/history_builtins.h"

#include <set>

#include <fmt/format.h>

#include "analysis/check/evaluate.h"
#include "analysis/history/history_fleet.h"
#include "analysis/history/history_rules.h"

namespace railgauge::history {

std::vector<std::pair<check::PartKey, check::Finding>>
incomplete_runs(const check::RuleSet &rules, const std::map<std::int64_t, StoredRun> &runs) {
  std::vector<std::pair<check::PartKey, check::Finding>> out;
  for (const auto &[id, run] : runs) {
    if (run.imported || run.status.empty() || run.status == "complete")
      continue;
    auto f =
        check::built_in_missing(check::kRunCompleteRule, rules.incomplete_runs, "run " + run.dir,
                                fmt::format("run.json says status '{}', not complete", run.status));
    f.run = run.dir;
    out.emplace_back(check::PartKey{run.host, check::PartKind::node, ""}, std::move(f));
  }
  return out;
}

void add_nothing_judged(const check::RuleSet &rules,
                        const std::map<std::string, check::HeldRecords> &held,
                        check::CheckResult &result) {
  if (rules.unjudged_nodes == check::Level::info)
    return;
  result.rule_categories[check::kNothingJudgedRule] = "health";
  std::map<std::string, check::NodeReading> reading;
  const std::set<std::string> history_rules{kDriftRule, kStepRule, kReplacedRule, kOffenderRule};
  for (const auto &p : result.parts)
    reading[p.key.host].add(p, history_rules);
  HistoryJudgement judged;
  for (const auto &[host, records] : held) {
    auto detail = check::nothing_judged_detail(rules, records, reading[host]);
    if (!detail.empty())
      judged.findings.emplace_back(
          check::PartKey{host, check::PartKind::node, ""},
          check::built_in_missing(check::kNothingJudgedRule, rules.unjudged_nodes,
                                  "records of this node", std::move(detail)));
  }
  add_history(result, judged);
}

void name_rules_not_judged(const check::RuleSet &rules, check::CheckResult &result) {
  for (const auto &rule : rules.rules) {
    if (streamed_record_rule(rule))
      continue;
    result.not_judged.push_back(
        fmt::format("{}: an inventory probe ({}) needs the run directories (check --rules {} "
                    "DIR...)",
                    rule.id, rule.probe, rules.name));
  }
  result.not_judged.push_back(fmt::format(
      "{} (in part): the database keeps a run's status, not the points it planned or the counts "
      "its run.json states (check --rules {} DIR...)",
      check::kRunCompleteRule, rules.name));
}

} // namespace railgauge::history
