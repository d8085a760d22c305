// The history's judgement merged into `check`'s result: its findings are findings like any
// rule's, in the same output and the same verdict.
#include <algorithm>

#include "harness/record.h"

#include "analysis/history/history_rules.h"

namespace railgauge::history {
namespace {

using check::PartKey;
using check::PartKind;
using check::PartResult;

// The part's entry, added where the runs judged did not show it, and its node's first (every
// part's node is listed too).
PartResult &part_of(check::CheckResult &result, const PartKey &key) {
  if (key.kind != PartKind::node)
    check::part_entry(result, PartKey{key.host, PartKind::node, ""});
  return check::part_entry(result, key);
}

} // namespace

void add_history(check::CheckResult &result, const HistoryJudgement &judgement) {
  for (const char *rule : {kDriftRule, kStepRule, kReplacedRule, kOffenderRule})
    result.rule_categories[rule] = "history";
  for (const auto &[where, tally] : judgement.tallies)
    part_of(result, where.first).rules.add(where.second, tally);
  for (const auto &[key, f] : judgement.findings) {
    auto &part = part_of(result, key);
    part.findings.push_back(f);
    part.verdict = std::max(part.verdict, f.level);
  }
  result.problems.insert(result.problems.end(), judgement.problems.begin(),
                         judgement.problems.end());
  for (auto &part : result.parts) {
    part.rules.sort();
    std::sort(part.findings.begin(), part.findings.end());
    result.verdict = std::max(result.verdict, part.verdict);
  }
}

namespace {

// Whether a finding is of the run in `dir`: one that names another run directory is that run's;
// one that names none (a node's, a fleet's) is of every run of its host.
bool of_run(const check::Finding &f, const std::string &dir) {
  return f.run.empty() || f.run == dir;
}

} // namespace

void record_verdicts(Database &db, const check::CheckResult &result,
                     const std::vector<JudgedRun> &runs) {
  const auto now = utc_timestamp_now();
  in_transaction(db, [&] {
    for (const auto &run : runs) {
      const auto ids = db.query("SELECT ru.id, h.id FROM runs ru JOIN hosts h ON h.id = "
                                "ru.host_id WHERE ru.run_id = ? AND h.name = ?",
                                {run.run_id, run.host});
      if (ids.empty())
        continue;
      std::vector<Row> rows;
      const auto add = [&](const std::string &rule, check::Level level, const std::string &what) {
        rows.push_back(
            {ids[0][0], ids[0][1], nullptr, rule, std::string(to_string(level)), what, now});
      };
      // Several runs of one host judged together: each run's verdict is its own findings' (and
      // its node's), never a sibling run's failure.
      check::Level node = check::Level::pass;
      std::vector<std::pair<const check::PartResult *, check::Level>> parts;
      for (const auto &part : result.parts) {
        if (part.key.host != run.host)
          continue;
        check::Level level = check::Level::pass;
        for (const auto &f : part.findings)
          if (of_run(f, run.dir))
            level = std::max(level, f.level);
        node = std::max(node, level);
        parts.emplace_back(&part, level);
      }
      for (const auto &[part, level] : parts) {
        add("verdict", part->key.kind == check::PartKind::node ? node : level, part->label);
        for (const auto &f : part->findings)
          if (!f.missing && f.level >= check::Level::warn && of_run(f, run.dir))
            add(f.rule_id, f.level, part->label + ": " + check::describe(f));
      }
      db.insert_rows("verdicts",
                     {"run_id", "host_id", "part_id", "rule", "level", "what", "judged_utc"}, rows);
    }
  });
}

} // namespace railgauge::history
