#include "analysis/history/stored_verdicts.h"

#include <set>

#include <fmt/format.h>

namespace railgauge::history {

namespace {

check::Level stored_level(const std::string &level) {
  return level == to_string(check::Level::fail)   ? check::Level::fail
         : level == to_string(check::Level::warn) ? check::Level::warn
                                                  : check::Level::pass;
}

check::Finding stored_finding(check::Level level, std::string detail, const std::string &run) {
  check::Finding f;
  f.rule_id = kStoredVerdictRule;
  f.category = "history";
  f.level = level;
  f.what = "what an earlier check --rules stored of the host's newest run";
  f.value = std::string(to_string(level));
  f.bound = "pass";
  f.detail = std::move(detail);
  f.run = run;
  return f;
}

} // namespace

HistoryJudgement stored_verdicts(Database &db, const std::vector<JudgedRun> &newest) {
  HistoryJudgement out;
  std::set<std::pair<std::string, std::string>> seen; // host, run id: ranks of one run once
  for (const auto &run : newest) {
    if (!seen.insert({run.host, run.run_id}).second)
      continue;
    // The latest check of the run alone: a check stores its rows with one judged_utc, and a check
    // with the right profile after one with the wrong profile replaces what that one concluded.
    const auto rows = db.query(
        "SELECT v.level, v.rule, v.what, v.judged_utc FROM verdicts v JOIN runs ru ON ru.id = "
        "v.run_id JOIN hosts h ON h.id = ru.host_id WHERE ru.run_id = ? AND h.name = ? AND "
        "v.judged_utc = (SELECT MAX(v2.judged_utc) FROM verdicts v2 WHERE v2.run_id = v.run_id) "
        "ORDER BY v.id",
        {run.run_id, run.host});
    if (rows.empty()) {
      out.problems.push_back(fmt::format(
          "{}: its newest run {} was stored and never checked with a profile, so no verdict of "
          "it stands here; `check --rules PROFILE --history DB` judges it",
          run.host, run.run_id));
      continue;
    }
    const check::PartKey node{run.host, check::PartKind::node, ""};
    auto &tally = out.tallies[{node, kStoredVerdictRule}];
    ++tally.checked;
    bool found = false;
    check::Level verdict = check::Level::pass; // the stored parts' verdicts, missing ones too
    std::string judged;
    for (const auto &row : rows) {
      const auto level = stored_level(as_text(row[0]));
      judged = as_text(row[3]);
      if (as_text(row[1]) == "verdict") {
        verdict = std::max(verdict, level);
        continue;
      }
      if (level == check::Level::pass)
        continue;
      found = true;
      out.findings.emplace_back(
          node, stored_finding(level,
                               fmt::format("{} said {} ({}, stored {}): {}", as_text(row[1]),
                                           as_text(row[0]), run.run_id, judged, as_text(row[2])),
                               run.run_id));
    }
    // A verdict of values it could not read (a family never run) stores no finding row.
    if (!found && verdict != check::Level::pass) {
      found = true;
      out.findings.emplace_back(
          node, stored_finding(verdict,
                               fmt::format("the check stored {} of the node ({}, stored {}) for "
                                           "values it could not read",
                                           to_string(verdict), run.run_id, judged),
                               run.run_id));
    }
    tally.passed += found ? 0 : 1;
  }
  return out;
}

} // namespace railgauge::history
