#include "analysis/history/history_builtins.h"

#include <algorithm>
#include <set>

#include <fmt/format.h>

#include "analysis/check/evaluate.h"
#include "analysis/check/rule_values.h"
#include "analysis/check/run_completeness.h"
#include "analysis/history/history_fleet.h"
#include "analysis/history/history_rules.h"
#include "analysis/history/lost_ranks.h"
#include "harness/run_fields.h"

namespace railgauge::history {

StoredRun stored_run(const Row &row) {
  StoredRun run;
  run.host = as_text(row[1]);
  run.dir = as_text(row[2]);
  // An import's source names its tool; railgauge's own runs say "railgauge", or "records" for
  // a bare records.jsonl, which `check` judges as railgauge's own.
  const auto source = as_text(row[3]);
  run.imported = source != "railgauge" && source != kBareRecordsSource;
  run.status = as_text(row[4]);
  run.run_id = as_text(row[5]);
  if (!std::holds_alternative<std::nullptr_t>(row[6]))
    run.incomplete = as_text(row[6]);
  run.world_size = as_int(row[7]);
  run.world_rank = as_int(row[8]);
  run.lost = parsed_lost_ranks(row.at(10));
  return run;
}

bool StoredRun::stopped_from_outside() const {
  return incomplete && incomplete->starts_with(check::kNotJudged);
}

bool StoredRun::is_cut_point(const Record &r) const {
  if (!stopped_from_outside() || r.status != Status::error || !r.reason || r.reason->empty())
    return false;
  if (check::is_signal_cut(r) && status == run_field::kInterruptedStatus)
    return !check::cut_point_may_have_hung(r);
  return stopped_at(*incomplete, *r.reason); // as check::is_point_that_stopped_the_run
}

std::string StoredRun::cut_point_detail(const std::string &reason) const {
  if (const auto lost = incomplete ? lost_rank_excuse(*incomplete) : std::nullopt)
    return fmt::format("{}{}; {}", check::kNotJudged, *lost, reason);
  return check::signal_cut_point_detail(reason);
}

std::vector<std::pair<check::PartKey, check::Finding>>
incomplete_runs(const check::RuleSet &rules, const std::map<std::int64_t, StoredRun> &runs) {
  std::vector<std::pair<check::PartKey, check::Finding>> out;
  std::vector<check::RankOfRun> ranks;
  for (const auto &[id, run] : runs) {
    if (run.imported)
      continue;
    if (run.world_size && run.world_rank)
      ranks.push_back({run.run_id, run.host, *run.world_size, *run.world_rank, run.lost});
    // Stored before the database kept completeness: its status alone.
    const auto why = run.incomplete ? *run.incomplete
                     : run.status.empty() || run.status == "complete"
                         ? ""
                         : fmt::format("run.json says status '{}', not complete", run.status);
    if (why.empty())
      continue;
    const auto level = run.stopped_from_outside()
                           ? std::min(rules.incomplete_runs, check::Level::warn)
                           : rules.incomplete_runs;
    auto f = check::built_in_missing(check::kRunCompleteRule, level, "run " + run.dir, why);
    f.run = run.dir;
    out.emplace_back(check::PartKey{run.host, check::PartKind::node, ""}, std::move(f));
  }
  for (const auto &m : check::missing_ranks(ranks))
    for (const auto &host : m.hosts)
      out.emplace_back(check::PartKey{host, check::PartKind::node, ""},
                       check::built_in_missing(check::kRunCompleteRule, rules.incomplete_runs,
                                               "run " + m.run, m.why));
  return out;
}

void add_nothing_judged(const check::RuleSet &rules,
                        const std::map<std::string, check::HeldRecords> &held,
                        check::CheckResult &result) {
  if (rules.unjudged_nodes == check::Level::info)
    return;
  result.rule_categories[check::kNothingJudgedRule] = "health";
  std::map<std::string, check::NodeReading> reading;
  auto not_readings = check::rules_not_reading_records(rules);
  not_readings.insert({kDriftRule, kStepRule, kReplacedRule, kOffenderRule});
  for (const auto &p : result.parts)
    reading[p.key.host].add(p, not_readings);
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

void add_unreadable(Database &db, const check::RuleSet &rules, check::CheckResult &result) {
  // In the order ingest met them, which is the order `check` over the same directories lists
  // them in: the walk's first, then each run's files.
  HistoryJudgement judged;
  db.for_each("SELECT path, what, host FROM unreadable ORDER BY id", {}, [&](const Row &row) {
    result.unreadable.push_back({as_text(row[0]), as_text(row[1]), rules.unreadable_inputs});
    // A run of a known host the ingest could not store: that host's newest run is unknown, and
    // its older pass must not stand (it did, exit 0 with --unreadable info, and as the node's
    // PASS beside the fleet's exit 2 otherwise). As an incomplete run is judged.
    if (const auto host = as_text(row[2]); !host.empty())
      judged.findings.emplace_back(
          check::PartKey{host, check::PartKind::node, ""},
          check::built_in_missing(
              check::kRunCompleteRule, rules.incomplete_runs, "run " + as_text(row[0]),
              fmt::format("the fleet history could not store it: {}", as_text(row[1]))));
  });
  add_history(result, judged);
  if (!result.unreadable.empty())
    result.verdict = std::max(result.verdict, rules.unreadable_inputs);
}

void name_rules_not_judged(const check::RuleSet &rules,
                           const std::set<std::string> &inventory_unknown,
                           bool completeness_unknown, check::CheckResult &result) {
  HistoryJudgement judged;
  for (const auto &rule : rules.rules) {
    if (streamed_record_rule(rule) || inventory_unknown.empty())
      continue;
    const auto why = fmt::format("an inventory probe ({}) of a run stored before the database "
                                 "kept inventories needs its run directory (ingest it again, or "
                                 "check --rules {} DIR...)",
                                 rule.probe, rules.name);
    result.not_judged.push_back(fmt::format("{} (in part): {}", rule.id, why));
    // Not judged is not passed: each such node warns (no drain: nothing says the node is bad).
    result.rule_categories[rule.id] = rule.category;
    for (const auto &host : inventory_unknown)
      judged.findings.emplace_back(
          check::PartKey{host, check::PartKind::node, ""},
          check::missing_finding(rule, rule.probe,
                                 "not judged from the history: the database keeps no inventory "
                                 "of this node's newest run; " +
                                     why,
                                 check::Level::warn));
  }
  add_history(result, judged);
  if (completeness_unknown)
    result.not_judged.push_back(fmt::format(
        "{} (in part): a newest run stored before the database kept the points it planned and "
        "the counts its run.json states is judged by its status (ingest it again, or check "
        "--rules {} DIR...)",
        check::kRunCompleteRule, rules.name));
}

} // namespace railgauge::history
