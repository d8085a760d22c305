// Pass 2 of the record rules over the database (record_rules.h): each rule's fleets, curves
// and missing values judged, and every finding added to the result.
#include <algorithm>
#include <iterator>
#include <map>
#include <optional>
#include <set>
#include <span>
#include <tuple>

#include <fmt/format.h>

#include "analysis/check/absolute_judgement.h"
#include "analysis/check/curve_figure.h"
#include "analysis/check/gpus_not_measured.h"
#include "analysis/check/pair_isolation.h"
#include "analysis/check/run_completeness.h"
#include "analysis/history/history_inventory.h"
#include "analysis/history/record_rules.h"

namespace railgauge::history {

using check::Finding;
using check::FleetVerdict;
using check::PartKey;
using check::Rule;
using json = nlohmann::json;

void RecordRules::judge(check::CheckResult &result) {
  HistoryJudgement judged;
  result.rule_categories[check::kRecordStatusRule] = "health";
  result.rule_categories[check::kRunCompleteRule] = "health";
  for (const auto &[part, tally] : status_tallies_)
    judged.tallies[{parts_[part], check::kRecordStatusRule}] = tally;
  if (!isolation_tallies_.empty())
    result.rule_categories[check::kPairIsolationRule] = "nic";
  for (const auto &[part, tally] : isolation_tallies_)
    judged.tallies[{parts_[part], check::kPairIsolationRule}] = tally;
  for (auto &f : incomplete_runs(ruleset_, runs_))
    judged.findings.push_back(std::move(f));
  if (!newest_.shared_host_names.empty())
    result.rule_categories[check::kOneMachinePerHostRule] = "health";
  for (const auto &shared : newest_.shared_host_names)
    judged.findings.emplace_back(PartKey{shared.host, check::PartKind::node, ""},
                                 check::one_machine_per_host_finding(shared));
  if (ruleset_.unverified_records != check::Level::info && !unverified_.empty()) {
    result.rule_categories[check::kDataCheckRule] = "health";
    for (const auto &[host, u] : unverified_)
      judged.findings.emplace_back(PartKey{host, check::PartKind::node, ""},
                                   check::data_check_off_finding(ruleset_.unverified_records, u));
  }
  // The records' GPU names (the inventories' are judged with the inventory rules).
  for (auto &[host, finding] : check::profile_gpu_findings(
           ruleset_, nvml_gpu_names_, record_gpu_names_, check::Said::records)) {
    result.rule_categories[check::kProfileGpuRule] = "health";
    judged.findings.emplace_back(PartKey{host, check::PartKind::node, ""}, std::move(finding));
  }
  // An import holds no inventory: its inventory rules are not covered, as over directories.
  for (const auto &rule : ruleset_.rules)
    if (rule.from_inventory()) {
      result.rule_categories[rule.id] = rule.category;
      for (const auto &host : imported_hosts_)
        if (!own_hosts_.contains(host))
          note(rule, host, rule.probe, "", true);
    }
  for (auto &state : rules_) {
    const Rule &rule = *state.rule;
    result.rule_categories[rule.id] = rule.category;
    no_record_on_nodes(state);
    no_record_on_gpus(state);
    if (rule.curve)
      judge_curves(state);
    else
      judge_rule(state);
    for (const auto &[part, tally] : state.tallies)
      judged.tallies[{parts_[part], rule.id}] = tally;
    auto [listed, counts] = state.missing->take();
    for (auto &l : listed)
      judged.findings.emplace_back(l.part, std::move(l.finding));
    for (auto &c : counts)
      result.unlisted_missing.push_back(std::move(c));
    // Done with: its values and sets freed before the next rule is judged.
    state.missing.reset();
    std::vector<Reading>().swap(state.readings);
    std::vector<CurvePoint>().swap(state.curve_points);
    state.tallies = {};
    state.hosts_with_match = {};
    state.gpus_with_match = {};
    state.windows = {};
    state.other_sizes_only = {};
    state.failed_point = {};
  }
  const auto unknown_inventory = inventory_rules(judged, result);
  write_violations();
  // Every rule's notes and violations at once: add_history sorts each part's findings.
  for (auto &n : notes_)
    judged.findings.push_back(std::move(n));
  notes_.clear();
  charge_pair_ends(judged.findings);
  add_history(result, judged);
  // A part's values counted as missing, not listed, weigh in its verdict as listed ones do.
  for (auto &part : result.parts) {
    for (const auto &[rule, tally] : part.rules)
      for (std::size_t level = 0; level < tally.unlisted_missing.size(); ++level)
        if (tally.unlisted_missing[level] > 0)
          part.verdict = std::max(part.verdict, static_cast<check::Level>(level));
    result.verdict = std::max(result.verdict, part.verdict);
  }
  add_nothing_judged(ruleset_, held_, result);
  // Imports only: their runs are whole by construction and hold no inventory.
  if (!own_hosts_.empty())
    name_rules_not_judged(
        ruleset_, unknown_inventory,
        std::any_of(runs_.begin(), runs_.end(),
                    [](const auto &r) { return !r.second.imported && !r.second.incomplete; }),
        result);
  check::mark_gpus_not_measured(ruleset_, result);
}

std::set<std::string> RecordRules::inventory_rules(HistoryJudgement &judged,
                                                   check::CheckResult &result) {
  auto inventory = judge_inventory_rules(db_, ruleset_, hosts_, newest_.ids);
  std::move(inventory.judged.findings.begin(), inventory.judged.findings.end(),
            std::back_inserter(judged.findings));
  judged.tallies.merge(inventory.judged.tallies);
  if (inventory.unlisted_missing.empty())
    return inventory.unknown;
  std::move(inventory.unlisted_missing.begin(), inventory.unlisted_missing.end(),
            std::back_inserter(result.unlisted_missing));
  std::map<std::string, std::size_t> order;
  for (std::size_t i = 0; i < ruleset_.rules.size(); ++i)
    order.emplace(ruleset_.rules[i].id, i);
  std::stable_sort(result.unlisted_missing.begin(), result.unlisted_missing.end(),
                   [&](const check::MissingCount &a, const check::MissingCount &b) {
                     return order[a.rule_id] < order[b.rule_id];
                   });
  return inventory.unknown;
}

void RecordRules::judge_curves(RuleState &state) {
  const Rule &rule = *state.rule;
  auto &points = state.curve_points;
  std::stable_sort(points.begin(), points.end(), [](const CurvePoint &a, const CurvePoint &b) {
    return std::tie(a.curve, a.x) < std::tie(b.curve, b.x);
  });
  std::vector<double> xs, ys;
  for (std::size_t begin = 0, end = 0; begin < points.size(); begin = end) {
    end = begin;
    xs.clear();
    ys.clear();
    for (; end < points.size() && points[end].curve == points[begin].curve; ++end) {
      xs.push_back(points[end].x);
      ys.push_back(points[end].y);
    }
    auto figure = check::curve_figure(*rule.curve, xs, ys);
    const CurvePoint &p = points[begin + figure.at];
    const Reading at{0, p.part, p.key, p.what, p.record, p.run, figure.value};
    if (figure.too_short) {
      ++state.tallies[p.part].checked;
      const PartKey &part = parts_[p.part];
      Finding f = base_of(rule, at, !state.missing->counted_only(part));
      f.level = check::Level::info;
      f.missing = true;
      f.detail = std::move(figure.how);
      const auto params = std::move(f.params);
      state.missing->add(part, std::move(f), &params);
      continue;
    }
    judge_absolute(state, at, json(figure.value), std::move(figure.how),
                   fmt::format("{} ({} over {})", whats_[p.what],
                               check::to_string(rule.curve->take), rule.curve->over));
  }
}

void RecordRules::judge_absolute(RuleState &state, const Reading &at, const json &value,
                                 std::string detail, std::optional<std::string> what) {
  const Rule &rule = *state.rule;
  auto &tally = state.tallies[at.part];
  ++tally.checked;
  const bool pass = check::absolute_pass(rule, value);
  tally.passed += pass ? 1 : 0;
  if (!pass)
    violations_.push_back({&rule, at, value, std::move(detail), std::move(what)});
}

void RecordRules::write_violations() {
  for (auto &v : violations_) {
    Finding f = base_of(*v.rule, v.at, true);
    if (v.what)
      f.what = std::move(*v.what);
    f.detail = std::move(v.detail);
    check::fill_absolute_finding(*v.rule, v.value, f);
    notes_.emplace_back(parts_[v.at.part], std::move(f));
  }
  violations_.clear();
}

// As over directories (Evaluator::no_record_on_gpus): a GPU the newest run's inventory lists that
// a point run on every GPU at once has no part of is missing the rule's value. A burn-in run
// with the slow GPU left out of CUDA_VISIBLE_DEVICES was signed off by the history alone.
void RecordRules::no_record_on_gpus(RuleState &state) {
  const Rule &rule = *state.rule;
  const auto missing = [&](const PartKey &gpu, std::string detail) {
    state.missing->add(
        gpu, check::missing_finding(rule, rule.metric, std::move(detail), rule.on_missing),
        nullptr);
  };
  for (const auto &[where, seen] : state.gpus_with_match) {
    const auto &[host, phase] = where;
    if (!own_hosts_.contains(host))
      continue;
    const auto failed = state.failed_point.find(host);
    for (const auto &gpu : index_.inventory_gpus(host))
      if (!seen.contains(gpu)) {
        const PartKey key{host, check::PartKind::gpu, gpu};
        const std::string *why = nullptr;
        if (failed != state.failed_point.end())
          for (const auto &point : failed->second)
            if (!why &&
                check::failed_point_of_gpu(point.key, point.params, point.device, phase, gpu))
              why = &point.detail;
        missing(key, check::no_record_on_gpu_detail(phase, index_.label_of(key), why));
      }
  }
  for (const auto &gpu : state.windows.unread(index_))
    missing(gpu, check::no_window_on_gpu_detail(rule, index_.label_of(gpu)));
}

void RecordRules::no_record_on_nodes(RuleState &state) {
  const Rule &rule = *state.rule;
  const auto detail = check::no_record_on_node_detail(rule);
  for (const auto &host : hosts_) {
    if (state.hosts_with_match.contains(host))
      continue;
    const bool own = own_hosts_.contains(host);
    if (!own && !imported_hosts_.contains(host))
      continue; // a host of the history whose newest runs hold no record at all
    if (!own) {
      if (const auto cut = state.other_sizes_only.find(host); cut != state.other_sizes_only.end())
        state.missing->add(PartKey{host, check::PartKind::node, ""},
                           check::missing_finding(rule, rule.metric,
                                                  check::other_sizes_only(detail, cut->second),
                                                  rule.on_missing),
                           nullptr);
      else
        note(rule, host, rule.metric, "", true);
      continue;
    }
    if (rule.applies_to == check::AppliesTo::imported)
      continue;
    const auto failed = state.failed_point.find(host);
    const auto &why = failed == state.failed_point.end() ? detail : failed->second.front().detail;
    const bool stopped = stopped_hosts_.contains(host); // as Evaluator::no_record_on_nodes
    state.missing->add(
        PartKey{host, check::PartKind::node, ""},
        check::missing_finding(rule, rule.metric, stopped ? check::stopped_node_detail(why) : why,
                               stopped ? std::min(rule.on_missing, check::Level::warn)
                                       : rule.on_missing),
        nullptr);
  }
}

Finding RecordRules::base_of(const Rule &rule, const Reading &v, bool with_params) {
  Finding f;
  f.rule_id = rule.id;
  f.category = rule.category;
  f.what = whats_[v.what];
  f.key = keys_[v.key];
  f.run = runs_.at(v.run).dir;
  if (with_params) {
    const auto rows = db_.query("SELECT params FROM records WHERE id = ?", {v.record});
    if (!rows.empty())
      f.params = parsed(rows.front().at(0));
  }
  return f;
}

std::string RecordRules::stored_detail(const check::DetailSpec &spec, std::int64_t record) {
  const auto rows = db_.query("SELECT params, metrics FROM records WHERE id = ?", {record});
  if (rows.empty())
    return "";
  Record r;
  r.params = parsed(rows.front().at(0));
  r.metrics = parsed(rows.front().at(1));
  return check::detail_of(spec, r);
}

void RecordRules::judge_rule(RuleState &state) {
  auto &readings = state.readings;
  std::sort(readings.begin(), readings.end(), [](const Reading &a, const Reading &b) {
    return std::tie(a.group, a.record) < std::tie(b.group, b.record);
  });
  for (std::size_t begin = 0, end = 0; begin < readings.size(); begin = end) {
    end = begin;
    while (end < readings.size() && readings[end].group == readings[begin].group)
      ++end;
    const std::span<const Reading> group(readings.data() + begin, end - begin);
    if (state.rule->fleet->per_node)
      judge_siblings(state, group);
    else
      judge_fleet(state, group);
  }
}

void RecordRules::judge_fleet(RuleState &state, std::span<const Reading> group) {
  std::vector<double> numbers;
  numbers.reserve(group.size());
  for (const auto &v : group)
    numbers.push_back(v.value);
  const auto verdicts = check::judge_fleet_values(*state.rule, numbers);
  for (std::size_t i = 0; i < group.size(); ++i)
    report(state, group[i], verdicts[i]);
}

void RecordRules::judge_siblings(RuleState &state, std::span<const Reading> group) {
  std::map<PartKey, std::vector<const Reading *>> by_part;
  for (const auto &v : group)
    by_part[parts_[v.part]].push_back(&v);
  std::vector<std::vector<double>> numbers;
  for (const auto &[part, list] : by_part) {
    numbers.emplace_back();
    for (const auto *v : list)
      numbers.back().push_back(v->value);
  }
  const auto verdicts = check::judge_sibling_values(*state.rule, numbers);
  std::size_t i = 0;
  for (const auto &[part, list] : by_part)
    report(state, *list.front(), verdicts[i++]);
}

void RecordRules::report(RuleState &state, const Reading &v, const FleetVerdict &verdict) {
  const Rule &rule = *state.rule;
  const PartKey &part = parts_[v.part];
  auto &tally = state.tallies[v.part];
  ++tally.checked;
  tally.passed += verdict.pass ? 1 : 0;
  if (verdict.pass)
    return;
  Finding f = base_of(rule, v, verdict.judged || !state.missing->counted_only(part));
  // As the directories' check reads it from the record (rule_values), for a judged value
  if (rule.detail && verdict.judged)
    f.detail = stored_detail(*rule.detail, v.record);
  check::fill_fleet_finding(rule, verdict, f);
  if (verdict.judged)
    notes_.emplace_back(part, std::move(f));
  else
    state.missing->add(part, std::move(f), nullptr);
}
// As check::Evaluator::charge_pair_ends over directories.
void RecordRules::charge_pair_ends(std::vector<std::pair<PartKey, Finding>> &findings) const {
  if (pair_ends_.empty())
    return;
  std::map<std::string, std::string> run_of_dir;
  for (const auto &[id, run] : runs_)
    run_of_dir.try_emplace(run.dir, run.run_id);
  std::vector<std::pair<PartKey, Finding>> charged;
  for (const auto &[part, f] : findings)
    if (const auto run = run_of_dir.find(f.run); run != run_of_dir.end())
      if (auto there = pair_ends_.charged_to_server_end(run->second, part, f))
        charged.push_back(std::move(*there));
  for (auto &c : charged)
    findings.push_back(std::move(c));
  for (auto &c : pair_ends_.unmeasured_server_ends())
    findings.push_back(std::move(c));
}

} // namespace railgauge::history
