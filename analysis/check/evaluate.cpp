#include "analysis/check/evaluate.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <map>
#include <optional>
#include <set>

#include <fmt/format.h>

#include "analysis/check/evaluator.h"
#include "analysis/check/gpus_not_measured.h"
#include "analysis/check/inventory_probes.h"
#include "analysis/check/json_path.h"
#include "analysis/check/rule_values.h"
#include "analysis/check/run_completeness.h"
#include "harness/inventory/inventory_fields.h"
#include "harness/metric_names.h"
#include "harness/noise_bound.h"
#include "harness/run_fields.h"
#include "records/collective_record.h"
#include "records/gemm_record.h"
#include "records/memory_record.h"
#include "records/offload_record.h"
#include "records/per_gpu_parts.h"
#include "records/rdma_record.h"

namespace railgauge::check {

std::string category_of_key(const std::string &key) {
  const auto family = key.substr(0, key.find('.'));
  for (const auto &[name, category] :
       {std::pair{gemm::record::kFamily, gemm::record::kCategory},
        std::pair{memory::record::kFamily, memory::record::kCategory},
        std::pair{offload::record::kFamily, offload::record::kCategory},
        std::pair{rdma::record::kFamily, rdma::record::kCategory},
        std::pair{collectives::record::kFamily, collectives::record::kCategory}})
    if (family == name)
      return category;
  return "health";
}

Evaluator::Evaluator(const RuleSet &rules, const analysis::RunSet &runs,
                     std::vector<std::vector<Record>> gpu_parts)
    : rules_(rules), runs_(runs), gpu_parts_(std::move(gpu_parts)),
      selection_(runs_, gpu_parts_, index_) {
  gpu_parts_.resize(runs_.runs.size());
}

CheckResult Evaluator::run() {
  index_hosts();
  selection_.index_records();
  selection_.count_uses(rules_);
  for (const auto &rule : rules_.rules)
    apply(rule);
  record_status_rule();
  ledger_.flush_tallies(kRecordStatusRule);
  charge_pair_ends();
  run_complete_rule();
  pair_isolation_rule();
  nothing_judged_rule();
  data_check_rule();
  one_machine_per_host_rule();
  profile_gpu_rule();
  auto result = finish();
  for (const auto &u : runs_.unreadable)
    result.unreadable.push_back({u.path,
                                 u.refused ? std::string(kRefusedAsWritten) + u.what : u.what,
                                 rules_.unreadable_inputs, u.refused});
  if (!result.unreadable.empty())
    result.verdict = std::max(result.verdict, rules_.unreadable_inputs);
  return result;
}

CheckResult Evaluator::run_inventory_rules() {
  index_hosts();
  selection_.count_uses(rules_);
  for (const auto &rule : rules_.rules)
    if (rule.from_inventory())
      apply(rule);
  profile_gpu_rule(); // the inventories' GPU names, as over directories
  return finish();
}

void Evaluator::apply(const Rule &rule) {
  result_.rule_categories[rule.id] = rule.category;
  ledger_.begin_rule();
  if (rule.from_inventory())
    inventory_rule(rule);
  else
    record_rule(rule);
  ledger_.end_rule(rule.id);
  selection_.release(rule);
}

void Evaluator::index_hosts() {
  for (std::size_t i = 0; i < runs_.runs.size(); ++i) {
    const auto &run = runs_.runs[i];
    std::string host = text_field(run.manifest, run_field::kHost);
    if (host.empty() && !run.records.empty())
      host = run.records.front().host;
    // A run of which nothing names a host (no run.json read, no record read) is no node's: its
    // paths are the result's unreadable inputs, which fail the verdict, and the drain list never
    // carries a directory for a node name.
    run_host_[run.dir] = host;
    if (host.empty())
      continue;
    ledger_.part(PartKey{host, PartKind::node, ""});
    const bool imported = is_imported(run);
    auto &hosts = imported ? imported_hosts_ : own_hosts_;
    for (const auto *records :
         std::array<const std::vector<Record> *, 2>{&run.records, &gpu_parts_[i]})
      for (const auto &r : *records)
        if (hosts.insert(r.host).second)
          ledger_.part(PartKey{r.host, PartKind::node, ""});
    hosts.insert(host);
    // An import's run.json describes the machine that imported it, never the one measured:
    // its inventory is not judged.
    if (!imported && run.manifest.is_object() &&
        run.manifest.contains(inventory_field::kInventory) &&
        run.manifest[inventory_field::kInventory].is_object()) {
      inventories_[host].emplace_back(run.dir, &run.manifest[inventory_field::kInventory]);
      index_.add_inventory(host, run.manifest[inventory_field::kInventory]);
    }
    if (imported) {
      index_.add_imported_gpus(host, run.manifest.at(run_field::kImported));
      for (const auto &r : run.records)
        imported_records_[r.host].push_back(&r);
    } else {
      for (const auto &r : run.records)
        if (r.status == Status::failed || r.status == Status::error)
          failed_records_[r.host].push_back(&r);
      if (stopped_from_outside(run, host, runs_))
        stopped_hosts_.insert(host);
    }
  }
  ledger_.list_hosts();
}

// The relative noise of a timed figure: its record's time samples' (relative_noise), none for a
// record without them (an import, a burn). Read only where a finding is written: most values pass,
// and reading it for each was a twentieth of a large fleet's check. A ratio of two points of a
// curve is as noisy as both (their relative noises in quadrature).
std::optional<double> Evaluator::noise_of(const Source &s) {
  if (!s.timed || !s.record)
    return std::nullopt;
  const auto own = relative_noise(*s.record);
  if (!s.divided_by || !own)
    return own;
  const auto other = relative_noise(*s.divided_by);
  return other ? std::optional<double>(std::hypot(*own, *other)) : std::nullopt;
}

Finding Evaluator::base_of(const Rule &rule, const Source &s) const {
  Finding f;
  f.rule_id = rule.id;
  f.category = rule.category;
  f.what = s.what;
  f.detail = s.detail;
  f.noise_rel = noise_of(s);
  if (s.run)
    f.run = *s.run;
  if (s.record) {
    f.key = s.record->key;
    f.params = s.record->params;
  }
  return f;
}

Finding Evaluator::missing(const Rule &rule, std::string what, std::string detail,
                           Level level) const {
  return missing_finding(rule, std::move(what), std::move(detail), level);
}

Finding built_in_missing(const char *rule_id, Level level, std::string what, std::string detail) {
  Finding f;
  f.rule_id = rule_id;
  f.category = "health";
  f.level = level;
  f.missing = true;
  f.what = std::move(what);
  f.detail = std::move(detail);
  return f;
}

// A value the rule selected but cannot judge, named by where it came from.
void Evaluator::add_missing_of(const Rule &rule, const PartKey &key, const Source &s,
                               std::string detail, Level level) {
  ledger_.add_missing_of(rule, key, s.what, s.record, s.run, std::move(detail), level);
}

bool Evaluator::only_imported(const std::string &host) const {
  return !own_hosts_.count(host) && imported_hosts_.count(host);
}

void Evaluator::inventory_rule(const Rule &rule) {
  for (const auto &host : ledger_.hosts()) {
    const PartKey node{host, PartKind::node, ""};
    if (only_imported(host)) {
      ledger_.note_not_covered(rule, host, rule.probe);
      continue;
    }
    const auto it = inventories_.find(host);
    if (it == inventories_.end()) {
      ledger_.add_missing(node,
                          missing(rule, rule.probe, "no run.json with an inventory for this node",
                                  rule.on_missing));
      continue;
    }
    // A node's runs that report the same value for a part are one observation: 15 runs of a
    // one-GPU node are one "gpu_count = 1" finding, and one value in a fleet, not 15.
    std::set<std::string> judged, unavailable;
    for (const auto &[dir, inventory] : it->second) {
      const auto &probe = selection_.probe_of(rule, *inventory);
      if (!probe.available) {
        // No run dir: two ranks' runs of one node lacking NVML are one finding.
        if (unavailable.insert(probe.reason).second)
          ledger_.add_missing(node, missing(rule, rule.probe, probe.reason, rule.on_missing));
        continue;
      }
      for (const auto &pv : probe.values) {
        if (!judged
                 .insert(fmt::format("{}\x1f{}\x1f{}\x1f{}", static_cast<int>(pv.kind), pv.id,
                                     pv.detail, pv.value.dump()))
                 .second)
          continue;
        const PartKey key{host, pv.kind, pv.id};
        Source s{
            nullptr, &dir,  pv.detail.empty() ? rule.probe : rule.probe + " (" + pv.detail + ")",
            "",      false, nullptr};
        if (pv.value.is_null()) {
          ledger_.tally(key, rule.id, false);
          add_missing_of(rule, key, s, "not reported in the inventory", rule.on_missing);
          continue;
        }
        const std::string scope = rule.fleet && rule.fleet->per_node ? host + " " : "";
        observe(rule, key, std::move(s), pv.value,
                rule.fleet ? scope + rule.probe + " " + pv.detail : "");
      }
    }
  }
  if (rule.fleet)
    judge_fleets(rule);
}

Finding record_status_finding(const Record &r, const std::string &run_dir) {
  Finding f;
  f.rule_id = kRecordStatusRule;
  f.category = category_of_key(r.key);
  f.level = Level::fail;
  f.what = "status";
  f.value = std::string(to_string(r.status));
  f.bound = "ok or waived";
  f.detail = r.reason.value_or("");
  f.key = r.key;
  f.params = r.params;
  f.run = run_dir;
  return f;
}

void Evaluator::record_status_rule() {
  result_.rule_categories[kRecordStatusRule] = "health";
  for (std::size_t i = 0; i < runs_.runs.size(); ++i) {
    const auto &run = runs_.runs[i];
    // The point a rank lost on another node broke, or a signal from outside cut, is not judged
    // here (run-complete).
    const auto by_lost_rank_text = stopped_by_lost_rank_elsewhere(run, run_host_[run.dir], runs_);
    const bool by_lost_rank = by_lost_rank_text.has_value();
    const auto lost =
        by_lost_rank ? by_lost_rank_text : stopped_from_outside(run, run_host_[run.dir], runs_);
    for (const auto *records :
         std::array<const std::vector<Record> *, 2>{&run.records, &gpu_parts_[i]})
      for (const auto &r : *records) {
        const auto category = category_of_key(r.key);
        const auto key = index_.part_of(r, nullptr, category);
        const bool bad = r.status == Status::failed || r.status == Status::error;
        const bool not_judged = bad && lost && is_point_that_stopped_the_run(run, r);
        if (!not_judged)
          ledger_.tally(key, kRecordStatusRule, !bad);
        if (!bad)
          continue;
        auto f = record_status_finding(r, run.dir);
        if (not_judged) {
          f.level = std::min(rules_.incomplete_runs, Level::warn);
          f.missing = true;
          f.detail = by_lost_rank ? fmt::format("{}{}; {}", kNotJudged, *lost, f.detail)
                                  : signal_cut_point_detail(f.detail);
        }
        ledger_.add_finding(key, std::move(f));
      }
  }
}

// A run cut short, or whose run.json counts records it does not hold, is missing evidence for
// its node, whatever the records it does hold say.
// A path of a run's own directory that could not be read (a cut records line, a run.json that is
// not JSON, records.jsonl missing) in a run that otherwise reads whole: its node is never a pass
// for what was lost. (The path is also among the result's unreadable inputs.)
void Evaluator::unreadable_in_run(const analysis::LoadedRun &run, const PartKey &node) {
  if (run.dir.empty())
    return;
  for (const auto &u : runs_.unreadable)
    if (u.path.starts_with(run.dir + "/") &&
        u.path.find('/', run.dir.size() + 1) == std::string::npos) {
      Finding f = built_in_missing(kRunCompleteRule, rules_.unreadable_inputs, "run " + run.dir,
                                   analysis::unreadable_text(u));
      f.run = run.dir;
      ledger_.add_finding(node, std::move(f));
    }
}

void Evaluator::run_complete_rule() {
  result_.rule_categories[kRunCompleteRule] = "health";
  for (const auto &run : runs_.runs) {
    const PartKey node{run_host_[run.dir], PartKind::node, ""};
    if (node.host.empty())
      continue; // no node's: its unreadable paths fail the verdict (index_hosts)
    const auto why = incompleteness(run);
    if (why.empty()) {
      unreadable_in_run(run, node);
      continue;
    }
    std::string detail;
    for (const auto &w : why)
      detail += (detail.empty() ? "" : "; ") + w;
    // Stopped by a rank lost on another node (that node fails run-complete) or by a signal from
    // outside (a job's time limit): this node is not judged on the points it never measured (a
    // warning: not a pass, not a drain).
    Level level = rules_.incomplete_runs;
    if (const auto lost = stopped_from_outside(run, node.host, runs_)) {
      level = std::min(level, Level::warn);
      detail = fmt::format("{}{}; {}", kNotJudged, *lost, detail);
    } else if (const auto other = lost_in_turn_by(run, node.host, runs_)) {
      if (const auto lost_text = lost_ranks_elsewhere(run, node.host))
        detail = fmt::format("{}; {}; {}", lost_in_turn_text(*other), *lost_text, detail);
    }
    Finding f = built_in_missing(kRunCompleteRule, level, "run " + run.dir, detail);
    f.run = run.dir;
    ledger_.add_finding(node, std::move(f));
  }
  for (const auto &m : missing_ranks(runs_))
    for (const auto &host : m.hosts)
      ledger_.add_finding(
          PartKey{host, PartKind::node, ""},
          built_in_missing(kRunCompleteRule, rules_.incomplete_runs, "run " + m.run, m.why));
}

CheckResult Evaluator::finish() {
  result_.rules_name = rules_.name;
  result_.rules_file = rules_.file;
  for (const auto &run : runs_.runs)
    result_.inputs.push_back(run.dir);
  std::sort(result_.inputs.begin(), result_.inputs.end());
  result_.problems = runs_.problems;
  // In line order within a file: "records.jsonl:2" before "records.jsonl:10".
  std::sort(result_.problems.begin(), result_.problems.end(), natural_less);
  ledger_.finish(index_, result_);
  return std::move(result_);
}

CheckResult evaluate(const RuleSet &rules, const analysis::RunSet &runs) {
  // Each GPU of a point that ran on every GPU at once (a burn-in phase) is judged as a part of
  // its own: its object in the record is read as a record of the run (records/per_gpu_parts.h).
  // Only those records are made; the runs are never copied.
  std::vector<std::vector<Record>> gpu_parts(runs.runs.size());
  for (std::size_t i = 0; i < runs.runs.size(); ++i)
    for (const auto &r : runs.runs[i].records) {
      auto parts = records::per_gpu_parts(r);
      // A point on one GPU: that GPU's figures are the point's, timed by the point's samples, so
      // its part is as noisy as they are (relative_noise). With several GPUs each lane was timed
      // apart and its spread is not in the record: its noise stays unknown.
      const auto time = r.metrics.find(metric::kTimeS);
      if (parts.size() == 1 && time != r.metrics.end() &&
          !parts[0].metrics.contains(metric::kTimeS))
        parts[0].metrics[metric::kTimeS] = *time;
      for (auto &part : parts)
        gpu_parts[i].push_back(std::move(part));
    }
  auto result = Evaluator(rules, runs, std::move(gpu_parts)).run();
  mark_gpus_not_measured(rules, result);
  return result;
}

CheckResult evaluate_inventory_rules(const RuleSet &rules, const analysis::RunSet &runs) {
  return Evaluator(rules, runs, {}).run_inventory_rules();
}

} // namespace railgauge::check
