// The built-in rule `nothing-judged` (evaluate.h): a node whose ok records no rule of the
// profile judged, and a node whose multi-node records no rule of the profile selects. A
// node-local profile given a two-node nccl-tests log selects none of its records, and every rule
// it has is then "not covered": without this rule that node passed, having been read by nothing;
// and a two-node run of railgauge's own passed on its inventory rules while no rule looked at its
// collectives.
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

constexpr const char *kFabricProfiles = "h100-sxm-ib, h100-sxm-roce, h200-sxm-ib, h200-sxm-roce, "
                                        "or any-fabric when the fabric is unknown";

// What a node holds: its ok records by key, and of those that ran across hosts, per key, how
// many and whether a rule of the profile selects one (a rule may take only the large sizes).
struct HeldRecords {
  std::map<std::string, int> ok_by_key, multi_node_by_key;
  std::set<std::string> multi_node_keys_selected;
  std::map<std::string, int> unselected_multi_node() const {
    std::map<std::string, int> out;
    for (const auto &[key, n] : multi_node_by_key)
      if (!multi_node_keys_selected.count(key))
        out.emplace(key, n);
    return out;
  }
};

std::string counted_keys(const std::map<std::string, int> &by_key) {
  std::string keys;
  int total = 0;
  for (const auto &[key, n] : by_key) {
    keys += fmt::format("{}{} x{}", keys.empty() ? "" : ", ", key, n);
    total += n;
  }
  return fmt::format("{} ok record{} ({})", total, total == 1 ? "" : "s", keys);
}

bool multi_node(const Record &r) {
  if (!record_fields::in_family(r, collectives::record::kFamily))
    return false;
  const auto hosts = record_fields::integer(r.params, collectives::record::kGroupHosts);
  return hosts && *hosts >= 2;
}

// How a node was judged, from its parts' tallies and findings before this rule.
struct NodeReading {
  bool read = false; // a rule passed one of its values or found against one
  Level level = Level::pass;
  // Rules that selected its records and judged none, each with the first reason it gave.
  std::map<std::string, std::string> selected_unjudged;
};

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
      if (!multi_node(r))
        continue;
      ++h.multi_node_by_key[r.key];
      if (!h.multi_node_keys_selected.count(r.key) &&
          std::any_of(rules_.rules.begin(), rules_.rules.end(), [&](const Rule &rule) {
            return !rule.from_inventory() && applies(rule, run) && key_match(rule, r.key) &&
                   params_match(rule.params, r.params);
          }))
        h.multi_node_keys_selected.insert(r.key);
    }
  // record-status reads every record's status only, and a missing value is not a reading.
  std::map<std::string, NodeReading> reading; // by host
  for (const auto &[key, p] : parts_) {
    auto &n = reading[key.host];
    for (const auto &[rule, t] : p.rules) {
      if (rule != kRecordStatusRule && t.passed > 0)
        n.read = true;
      if (rule != kRecordStatusRule && t.checked > 0)
        n.selected_unjudged.try_emplace(rule, "");
      for (std::size_t l = 0; l < t.unlisted_missing.size(); ++l)
        if (t.unlisted_missing[l] > 0)
          n.level = std::max(n.level, static_cast<Level>(l));
    }
    for (const auto &f : p.findings) {
      if (!f.missing && f.rule_id != kRecordStatusRule)
        n.read = true;
      if (f.missing && !f.not_covered && !f.detail.empty())
        if (auto it = n.selected_unjudged.find(f.rule_id);
            it != n.selected_unjudged.end() && it->second.empty())
          it->second = f.detail;
      n.level = std::max(n.level, f.level);
    }
  }
  for (const auto &[host, h] : held) {
    const auto &n = reading[host];
    std::string detail;
    if (const auto unselected = h.unselected_multi_node(); !unselected.empty()) {
      // Whatever else was read: the fabric these records measured was not judged.
      detail = fmt::format("no rule of {} selects its {}, which ran across hosts: a node-local "
                           "profile does not judge the fabric; judge them with a fabric profile "
                           "({})",
                           rules_.name, counted_keys(unselected), kFabricProfiles);
    } else if (!n.read && n.level < rules_.unjudged_nodes) {
      // A node at the level already (a failed record, values missing at warn) is told nothing
      // new by this finding.
      std::string why;
      for (const auto &[rule, reason] : n.selected_unjudged)
        why += fmt::format("{}{}{}", why.empty() ? "" : "; ", rule,
                           reason.empty() ? "" : " (" + reason + ")");
      detail = why.empty() ? fmt::format("no rule of {} selects any of its {}: judge them with a "
                                         "profile that has rules for these records",
                                         rules_.name, counted_keys(h.ok_by_key))
                           : fmt::format("rules of {} selected its {} but could judge none: {}",
                                         rules_.name, counted_keys(h.ok_by_key), why);
    }
    if (detail.empty())
      continue;
    add_finding(PartKey{host, PartKind::node, ""},
                built_in_missing(kNothingJudgedRule, rules_.unjudged_nodes, "records of this node",
                                 std::move(detail)));
  }
}

} // namespace railgauge::check
