#include "analysis/check/unjudged_nodes.h"

#include <algorithm>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "analysis/check/evaluate.h"
#include "harness/data_paths.h"
#include "harness/record_fields.h"
#include "records/collective_record.h"

namespace railgauge::check {
namespace {

// The shipped profiles that judge a fabric: those named after one (-ib, -roce), read from the
// rules directory, and any-fabric.
std::string fabric_profiles() {
  std::vector<std::string> fabric;
  for (const auto &name : yaml_names({(data_dir() / "rules").string()}))
    if (name.ends_with("-ib") || name.ends_with("-roce"))
      fabric.push_back(name);
  return fmt::format("{}{}or any-fabric when the fabric is unknown", fmt::join(fabric, ", "),
                     fabric.empty() ? "" : ", ");
}

std::string counted_keys(const std::map<std::string, int> &by_key) {
  std::string keys;
  int total = 0;
  for (const auto &[key, n] : by_key) {
    keys += fmt::format("{}{} x{}", keys.empty() ? "" : ", ", key, n);
    total += n;
  }
  return fmt::format("{} ok record{} ({})", total, total == 1 ? "" : "s", keys);
}

} // namespace

bool multi_node(const Record &r) {
  if (!record_fields::in_family(r, collectives::record::kFamily))
    return false;
  const auto hosts = record_fields::integer(r.params, collectives::record::kGroupHosts);
  return hosts && *hosts >= 2;
}

bool selects(const Rule &rule, const Record &r, bool imported) {
  if (rule.from_inventory())
    return false;
  if (rule.applies_to != AppliesTo::any && (rule.applies_to == AppliesTo::imported) != imported)
    return false;
  return key_match(rule, r.key) && params_match(rule.params, r.params);
}

void HeldRecords::add(const RuleSet &rules, const Record &r, bool imported) {
  ++ok_by_key[r.key];
  if (!multi_node(r))
    return;
  ++multi_node_by_key[r.key];
  if (!multi_node_keys_selected.count(r.key) &&
      std::any_of(rules.rules.begin(), rules.rules.end(),
                  [&](const Rule &rule) { return selects(rule, r, imported); }))
    multi_node_keys_selected.insert(r.key);
}

std::set<std::string> rules_not_reading_records(const RuleSet &rules) {
  std::set<std::string> out{kProfileGpuRule, kOneMachinePerHostRule, kRunCompleteRule};
  for (const auto &rule : rules.rules)
    if (rule.from_inventory())
      out.insert(rule.id);
  return out;
}

// record-status reads every record's status only, and a missing value is not a reading.
void NodeReading::add(const PartResult &part, const std::set<std::string> &other_rules) {
  for (const auto &[rule, t] : part.rules) {
    if (other_rules.contains(rule))
      continue;
    if (rule != kRecordStatusRule && t.passed > 0)
      read = true;
    if (rule != kRecordStatusRule && t.checked > 0)
      selected_unjudged.try_emplace(rule, "");
    for (std::size_t l = 0; l < t.unlisted_missing.size(); ++l)
      if (t.unlisted_missing[l] > 0)
        level = std::max(level, static_cast<Level>(l));
  }
  for (const auto &f : part.findings) {
    if (other_rules.contains(f.rule_id))
      continue;
    if (!f.missing && f.rule_id != kRecordStatusRule)
      read = true;
    if (f.missing && !f.not_covered && !f.detail.empty())
      if (auto it = selected_unjudged.find(f.rule_id);
          it != selected_unjudged.end() && it->second.empty())
        it->second = f.detail;
    level = std::max(level, f.level);
  }
}

std::string nothing_judged_detail(const RuleSet &rules, const HeldRecords &held,
                                  const NodeReading &reading) {
  std::map<std::string, int> unselected;
  for (const auto &[key, n] : held.multi_node_by_key)
    if (!held.multi_node_keys_selected.count(key))
      unselected.emplace(key, n);
  if (!unselected.empty())
    // Whatever else was read: the fabric these records measured was not judged.
    return fmt::format("no rule of {} selects its {}, which ran across hosts: a node-local "
                       "profile does not judge the fabric; judge them with a fabric profile ({})",
                       rules.name, counted_keys(unselected), fabric_profiles());
  // A node at the level already (a failed record, values missing at warn) is told nothing new.
  if (reading.read || reading.level >= rules.unjudged_nodes)
    return "";
  std::string why;
  for (const auto &[rule, reason] : reading.selected_unjudged)
    why += fmt::format("{}{}{}", why.empty() ? "" : "; ", rule,
                       reason.empty() ? "" : " (" + reason + ")");
  return why.empty() ? fmt::format("no rule of {} selects any of its {}: judge them with a "
                                   "profile that has rules for these records",
                                   rules.name, counted_keys(held.ok_by_key))
                     : fmt::format("rules of {} selected its {} but could judge none: {}",
                                   rules.name, counted_keys(held.ok_by_key), why);
}

} // namespace railgauge::check
