#include "analysis/history/stored_verdicts.h"

#include <set>

#include <fmt/format.h>

namespace railgauge::history {

HistoryJudgement stored_verdicts(Database &db, const std::vector<JudgedRun> &newest) {
  HistoryJudgement out;
  std::set<std::pair<std::string, std::string>> seen; // host, run id: ranks of one run once
  for (const auto &run : newest) {
    if (!seen.insert({run.host, run.run_id}).second)
      continue;
    const check::PartKey node{run.host, check::PartKind::node, ""};
    auto &tally = out.tallies[{node, kStoredVerdictRule}];
    ++tally.checked;
    const auto rows =
        db.query("SELECT v.level, v.rule, v.what, v.judged_utc FROM verdicts v JOIN runs ru ON "
                 "ru.id = v.run_id JOIN hosts h ON h.id = ru.host_id WHERE ru.run_id = ? AND "
                 "h.name = ? AND v.rule <> 'verdict' ORDER BY v.id",
                 {run.run_id, run.host});
    bool found = false;
    for (const auto &row : rows) {
      const std::string level = as_text(row[0]);
      const auto stored = level == to_string(check::Level::fail)   ? check::Level::fail
                          : level == to_string(check::Level::warn) ? check::Level::warn
                                                                   : check::Level::pass;
      if (stored == check::Level::pass)
        continue;
      found = true;
      check::Finding f;
      f.rule_id = kStoredVerdictRule;
      f.category = "history";
      f.level = stored;
      f.what = "what an earlier check --rules stored of the host's newest run";
      f.value = level;
      f.bound = "pass";
      f.detail = fmt::format("{} said {} ({}, stored {}): {}", as_text(row[1]), level, run.run_id,
                             as_text(row[3]), as_text(row[2]));
      f.run = run.run_id;
      out.findings.emplace_back(node, std::move(f));
    }
    tally.passed += found ? 0 : 1;
  }
  return out;
}

} // namespace railgauge::history
