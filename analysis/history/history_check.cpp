// The history's judgement merged into `check`'s result: its findings are findings like any
// rule's, in the same output and the same verdict.
#include <algorithm>

#include "analysis/history/history_rules.h"

namespace railgauge::history {
namespace {

using check::PartKey;
using check::PartKind;
using check::PartResult;

std::string label_of(const PartKey &key) {
  if (key.kind == PartKind::node)
    return key.host;
  return key.kind == PartKind::gpu ? "gpu " + key.id : key.id;
}

PartResult &ensure(check::CheckResult &result, const PartKey &key) {
  auto it = std::lower_bound(result.parts.begin(), result.parts.end(), key,
                             [](const PartResult &p, const PartKey &k) { return p.key < k; });
  if (it != result.parts.end() && it->key == key)
    return *it;
  PartResult p;
  p.key = key;
  p.label = label_of(key);
  return *result.parts.insert(it, std::move(p));
}

// The part's entry, added where the runs judged did not show it, and its node's first (every
// part's node is listed too).
PartResult &part_of(check::CheckResult &result, const PartKey &key) {
  if (key.kind != PartKind::node)
    ensure(result, PartKey{key.host, PartKind::node, ""});
  return ensure(result, key);
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
  for (auto &part : result.parts) {
    part.rules.sort();
    std::sort(part.findings.begin(), part.findings.end());
    result.verdict = std::max(result.verdict, part.verdict);
  }
}

} // namespace railgauge::history
