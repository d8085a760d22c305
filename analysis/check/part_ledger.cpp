// The findings, tallies and missing values of a check's parts (part_ledger.h).
#include "analysis/check/part_ledger.h"

#include <algorithm>

#include "analysis/check/rule_values.h"

namespace railgauge::check {

PartResult &PartLedger::part(const PartKey &key) {
  // A rule reads a part's records one after another: the last part found saves a search of
  // every part with natural_less, which was most of a large fleet's time.
  if (last_part_ && last_part_->key == key)
    return *last_part_;
  if (const auto found = part_by_hash_.find(key); found != part_by_hash_.end())
    return *(last_part_ = found->second);
  auto [it, inserted] = parts_.try_emplace(key);
  it->second.key = key;
  part_by_hash_.emplace(key, &it->second);
  part(PartKey{key.host, PartKind::node, ""}); // every part's node is listed too
  last_part_ = &it->second;
  return it->second;
}

void PartLedger::list_hosts() {
  for (const auto &[key, p] : parts_)
    if (hosts_.empty() || hosts_.back() != key.host)
      hosts_.push_back(key.host);
}

void PartLedger::begin_rule() {
  missing_.emplace(kMissingListedPerRule, hosts_, [this](const PartKey &key, const Finding &f) {
    ++tally_of(key).unlisted_missing[static_cast<std::size_t>(f.level)];
  });
}

// The rule's missing values: the listed ones to their parts, the counts kept for the result.
void PartLedger::end_rule(const std::string &rule_id) {
  flush_tallies(rule_id);
  auto [listed, counts] = missing_->take();
  for (auto &l : listed)
    add_finding(l.part, std::move(l.finding));
  for (auto &c : counts)
    unlisted_missing_.push_back(std::move(c));
  missing_.reset();
}

// A rule's tallies are kept per part while it is judged and put into each part's map of rules
// once, when the rule ends: a search of that map per value was a fifth of a large fleet's time.
RuleTally &PartLedger::tally_of(const PartKey &key) { return rule_tallies_[&part(key)]; }

void PartLedger::flush_tallies(const std::string &rule) {
  for (const auto &[p, t] : rule_tallies_)
    p->rules.add(rule, t);
  rule_tallies_.clear();
}

void PartLedger::tally(const PartKey &key, const std::string &rule, bool passed) {
  (void)rule; // the rule being judged: flush_tallies() files it
  auto &t = tally_of(key);
  ++t.checked;
  t.passed += passed ? 1 : 0;
}

void PartLedger::add_finding(const PartKey &key, Finding f) {
  part(key).findings.push_back(std::move(f));
}

void PartLedger::add_missing(const PartKey &key, Finding f, const nlohmann::json *params) {
  missing_->add(key, std::move(f), params);
}

void PartLedger::add_missing_of(const Rule &rule, const PartKey &key, const std::string &what,
                                const Record *record, const std::string *run, std::string detail,
                                Level level) {
  if (missing_->counted_only(key)) {
    // Most missing values of a large fleet: counted from a finding built once and reused.
    auto &m = counted_;
    if (m.rule_id != rule.id)
      m = missing_finding(rule, "", "", level);
    m.level = level;
    m.what = what;
    m.detail = std::move(detail);
    m.key = record ? record->key : "";
    m.run = run ? *run : "";
    missing_->count(key, m);
    return;
  }
  auto m = missing_finding(rule, what, std::move(detail), level);
  if (record)
    m.key = record->key;
  if (run)
    m.run = *run;
  add_missing(key, std::move(m), record ? &record->params : nullptr);
}

void PartLedger::note_not_applicable(const Rule &rule, const PartKey &node,
                                     const std::string &detail) {
  auto &seen = not_applicable_[{rule.id, node.host}];
  if (seen++ > 0)
    return;
  auto f = missing_finding(rule, rule.metric, detail, Level::info);
  f.not_applicable = true;
  add_finding(node, std::move(f));
}

void PartLedger::note_not_covered(const Rule &rule, const std::string &host,
                                  const std::string &what) {
  auto f = missing_finding(rule, what, kNotCoveredDetail, Level::info);
  f.not_covered = true;
  add_finding(PartKey{host, PartKind::node, ""}, std::move(f));
}

void PartLedger::note_metric_not_covered(const Rule &rule, const std::string &host) {
  if (not_covered_metric_.insert({rule.id, host}).second)
    note_not_covered(rule, host, rule.metric);
}

void PartLedger::finish(const PartIndex &index, CheckResult &result) {
  for (auto &[key, p] : parts_) {
    p.rules.sort();
    std::sort(p.findings.begin(), p.findings.end());
    // The same fact seen in two runs of one node (two ranks' inventories) is one finding.
    p.findings.erase(std::unique(p.findings.begin(), p.findings.end()), p.findings.end());
    for (const auto &f : p.findings)
      p.verdict = std::max(p.verdict, f.level);
    for (const auto &[rule, t] : p.rules)
      for (std::size_t level = 0; level < t.unlisted_missing.size(); ++level)
        if (t.unlisted_missing[level] > 0)
          p.verdict = std::max(p.verdict, static_cast<Level>(level));
    p.label = index.label_of(key);
    result.verdict = std::max(result.verdict, p.verdict);
    result.parts.push_back(std::move(p));
  }
  for (auto &c : unlisted_missing_)
    result.unlisted_missing.push_back(std::move(c));
  unlisted_missing_.clear();
}

} // namespace railgauge::check
