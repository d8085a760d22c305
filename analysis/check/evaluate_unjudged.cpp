// The built-in rule `nothing-judged` (evaluate.h): a node whose ok records no rule of the
// profile judged. A node-local profile given a two-node nccl-tests log selects none of its
// records, and every rule it has is then "not covered": without this rule that node passed,
// having been read by nothing.
#include <algorithm>
#include <map>
#include <set>
#include <string>

#include <fmt/format.h>

#include "analysis/check/evaluate.h"
#include "analysis/check/evaluator.h"
#include "records/collective_record.h"

namespace railgauge::check {
namespace {

// What a node holds: its ok records by key, and whether any ran across hosts.
struct HeldRecords {
  std::map<std::string, int> ok_by_key;
  bool multi_node = false;
};

std::string held_text(const HeldRecords &held) {
  std::string keys;
  int total = 0;
  for (const auto &[key, n] : held.ok_by_key) {
    keys += fmt::format("{}{} x{}", keys.empty() ? "" : ", ", key, n);
    total += n;
  }
  return fmt::format("{} ok record{} ({})", total, total == 1 ? "" : "s", keys);
}

} // namespace

void Evaluator::nothing_judged_rule() {
  if (rules_.unjudged_nodes == Level::info)
    return; // a profile that says so: judged nothing is not worth a line
  result_.rule_categories[kNothingJudgedRule] = "health";
  std::map<std::string, HeldRecords> held; // by host
  for (const auto &run : runs_.runs)
    for (const auto &r : run.records) {
      if (r.status != Status::ok)
        continue; // record-status judges the others
      auto &h = held[r.host];
      ++h.ok_by_key[r.key];
      if (!h.multi_node && record_fields::in_family(r, collectives::record::kFamily)) {
        const auto hosts = record_fields::integer(r.params, collectives::record::kGroupHosts);
        h.multi_node = hosts && *hosts >= 2;
      }
    }
  // A node was read when a rule of the profile passed one of its values or found against one;
  // record-status reads every record's status only, and a missing value is not a reading. A
  // node whose verdict is already at the level (a failed record, values missing at warn) is
  // told nothing new by this finding.
  std::set<std::string> read;
  std::map<std::string, Level> level_of; // by host, before this rule
  for (const auto &[key, p] : parts_) {
    auto &level = level_of.try_emplace(key.host, Level::pass).first->second;
    for (const auto &[rule, t] : p.rules) {
      if (rule != kRecordStatusRule && t.passed > 0)
        read.insert(key.host);
      for (std::size_t l = 0; l < t.unlisted_missing.size(); ++l)
        if (t.unlisted_missing[l] > 0)
          level = std::max(level, static_cast<Level>(l));
    }
    for (const auto &f : p.findings) {
      if (!f.missing && f.rule_id != kRecordStatusRule)
        read.insert(key.host);
      level = std::max(level, f.level);
    }
  }
  for (const auto &[host, h] : held) {
    if (read.count(host) || level_of[host] >= rules_.unjudged_nodes)
      continue;
    Finding f;
    f.rule_id = kNothingJudgedRule;
    f.category = "health";
    f.level = rules_.unjudged_nodes;
    f.missing = true;
    f.what = "records of this node";
    f.detail = fmt::format(
        "no rule of {} judged any of its {}: {}", rules_.name, held_text(h),
        h.multi_node ? "they ran across hosts, and a node-local profile has no rule for that; "
                       "judge them with a fabric profile (h100-sxm-ib, h100-sxm-roce, "
                       "h200-sxm-ib, h200-sxm-roce, or any-fabric when the fabric is unknown)"
                     : "judge them with a profile that has rules for these records");
    add_finding(PartKey{host, PartKind::node, ""}, std::move(f));
  }
}

} // namespace railgauge::check
