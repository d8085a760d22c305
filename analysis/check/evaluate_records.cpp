// Judging a record rule (Evaluator, evaluator.h): the values of its metric in the records it
// selects, judged, observed for the fleet or gathered into curves, and the nodes it selected
// nothing on.
#include <map>
#include <set>

#include <fmt/format.h>

#include "analysis/check/curve_figure.h"
#include "analysis/check/evaluator.h"
#include "analysis/check/gpus_not_measured.h"
#include "analysis/check/pair_ends.h"
#include "analysis/check/rule_values.h"
#include "analysis/check/run_completeness.h"
#include "harness/waiver.h"
#include "records/per_gpu_parts.h"

namespace railgauge::check {

void Evaluator::record_rule(const Rule &rule) {
  std::set<std::string> hosts_with_match;
  bool own_run_measured = false; // a record of railgauge's own runs, not an import's
  // The GPUs a point that ran on every GPU at once (a burn phase) has a part of, by host.
  GpusByPhase gpus_with_match;
  std::map<std::string, Curve> curves;
  GpuWindows windows;
  const std::string *last_host = nullptr;
  for (const auto &ref : selection_.selected(rule)) {
    const auto &r = selection_.record(ref);
    const auto &run = runs_.runs[ref.run];
    if (!last_host || *last_host != r.host)
      hosts_with_match.insert(r.host);
    last_host = &r.host;
    own_run_measured = own_run_measured || !is_imported(run);
    if (r.status == Status::waived && r.reason && is_not_applicable(*r.reason)) {
      ledger_.note_not_applicable(rule, PartKey{r.host, PartKind::node, ""},
                                  fmt::format("{}: {}", r.key, *r.reason));
      continue;
    }
    const auto &key = selection_.part_of(ref, rule);
    if (key.kind == PartKind::gpu && r.params.is_object() &&
        r.params.value(records::kPartParam, "") == records::kPerGpuPart)
      gpus_with_match[{r.host, burn_phase(r.key, r.params)}].insert(key.id);
    if (r.status == Status::failed || r.status == Status::error)
      continue; // record-status fails its part; it is not also missing here
    if (r.status != Status::ok) {
      ledger_.tally(key, rule.id, false);
      add_missing_of(
          rule, key, Source{&r, &run.dir, rule.metric, "", false, nullptr},
          fmt::format("record is {}{}", to_string(r.status), r.reason ? ": " + *r.reason : ""),
          rule.on_missing);
      continue;
    }
    windows.saw(r, rule, key, index_);
    record_values(rule, r, run, key, curves);
  }
  for (auto &[id, curve] : curves)
    judge_curve(rule, curve);
  no_record_on_nodes(rule, hosts_with_match, own_run_measured);
  no_record_on_gpus(rule, gpus_with_match);
  for (const auto &gpu : windows.unread(index_))
    ledger_.add_missing(gpu, missing(rule, rule.metric,
                                     no_window_on_gpu_detail(rule, index_.label_of(gpu)),
                                     rule.on_missing));
  if (rule.fleet)
    judge_fleets(rule);
}

// The values of the rule's metric in one ok record: judged, observed for the fleet, or points
// of a curve.
void Evaluator::record_values(const Rule &rule, const Record &r, const analysis::LoadedRun &loaded,
                              const PartKey &record_key, std::map<std::string, Curve> &curves) {
  const std::string &run = loaded.dir;
  auto found = rule_values(rule, r);
  if (found.empty() && is_imported(loaded)) {
    // Another tool's output has only the figures it prints (perftest no port counters).
    ledger_.note_metric_not_covered(rule, r.host);
    return;
  }
  if (found.empty() && pair_figure_on_server_end(r, rule.metric)) {
    ledger_.note_not_applicable(rule, PartKey{r.host, PartKind::node, ""},
                                pair_server_end_detail());
    return;
  }
  if (found.empty()) {
    ledger_.tally(record_key, rule.id, false);
    add_missing_of(rule, record_key, Source{&r, &run, rule.metric, "", false, nullptr},
                   "the record has no such metric", no_metric_level(rule, r));
    return;
  }
  for (auto &rv : found) {
    const PartKey key = index_.part_of_value(r, rule, record_key, rv.path);
    if (rv.empty) { // each item of an empty list holds: the rule passes here
      ledger_.tally(key, rule.id, true);
      continue;
    }
    Source s{&r, &run, std::move(rv.what), std::move(rv.detail), rv.timed, nullptr};
    if (!rv.unreadable.empty()) {
      ledger_.tally(key, rule.id, false);
      add_missing_of(rule, key, s, rv.unreadable, rv.unreadable_level);
      continue;
    }
    if (rule.curve) {
      const auto point = curve_point_of(*rule.curve, r.params, rv.value);
      if (point.kind == CurveReading::Kind::left_out)
        continue;
      if (point.kind == CurveReading::Kind::unreadable) {
        ledger_.tally(key, rule.id, false);
        add_missing_of(rule, key, s, point.unreadable, rule.on_missing);
        continue;
      }
      auto &curve = curves[fmt::format(
          "{} {} {} {} {} {} {}", run, key.host, to_string(key.kind), key.id, r.key,
          params_key(r.params, rule.curve->ignore_params, rule.curve->over), rv.path)];
      curve.part = key;
      curve.points.push_back({point.x, point.y, std::move(s)});
      continue;
    }
    observe(rule, key, std::move(s), rv.value,
            rule.fleet ? fleet_group(rule, r, key, rv.path) : std::string());
  }
}

// A node on which the rule selected no record at all: one missing value for the node.
void Evaluator::no_record_on_nodes(const Rule &rule, const std::set<std::string> &hosts_with_match,
                                   bool own_run_measured) {
  const auto detail = no_record_on_node_detail(rule);
  // --cut-short excuses what a step that never ran would have measured: no own run holds it. A
  // record another node's own run holds came from a step that ran, so a node without it is judged
  // as ever (a node of a step cut mid-way is excused by its own interrupted run, stopped_hosts_);
  // an imported log's record says nothing of the job's steps.
  const bool excused_by_cut = !runs_.cut_short.empty() && !own_run_measured;
  for (const auto &host : ledger_.hosts()) {
    if (hosts_with_match.count(host))
      continue;
    if (only_imported(host)) {
      if (const auto *cut = imported_below_sizes(rule, host))
        ledger_.add_missing(
            PartKey{host, PartKind::node, ""},
            missing(rule, rule.metric, other_sizes_only(detail, cut->key), rule.on_missing));
      else
        ledger_.note_not_covered(rule, host, rule.metric);
      continue;
    }
    if (!own_hosts_.count(host) && rule.applies_to == AppliesTo::own)
      continue;
    if (rule.applies_to == AppliesTo::imported)
      continue; // an own run cannot hold it; an import that lacks it is listed below
    // A node whose run was stopped from outside (a job's time limit) may lack the record because
    // its point never ran: not a pass, not a drain.
    if (excused_by_cut || stopped_hosts_.contains(host)) {
      const auto why = no_record_detail(rule, host);
      ledger_.add_missing(PartKey{host, PartKind::node, ""},
                          missing(rule, rule.metric,
                                  !excused_by_cut
                                      ? stopped_node_detail(why)
                                      : fmt::format("{}{}; {}", kNotJudged, runs_.cut_short, why),
                                  std::min(rule.on_missing, Level::warn)));
      continue;
    }
    ledger_.add_missing(PartKey{host, PartKind::node, ""},
                        missing(rule, rule.metric, no_record_detail(rule, host), rule.on_missing));
  }
}

// Why an own node holds no record the rule selects: a burn point that failed before it measured a
// GPU (selects_point_of_gpu_parts), or none at all.
std::string Evaluator::no_record_detail(const Rule &rule, const std::string &host) const {
  return failed_point_of(rule, host).value_or(no_record_on_node_detail(rule));
}

std::optional<std::string> Evaluator::failed_point_of(const Rule &rule, const std::string &host,
                                                      const std::string *phase,
                                                      const std::string *gpu) const {
  if (const auto it = failed_records_.find(host); it != failed_records_.end())
    for (const auto *r : it->second)
      if (selects_point_of_gpu_parts(rule, r->key, r->params) &&
          (!phase || failed_point_of_gpu(r->key, r->params, r->device, *phase, *gpu)))
        return failed_point_detail(rule, r->key, std::string(to_string(r->status)),
                                   r->reason.value_or(""));
  return std::nullopt;
}

// An ok imported record of `host` that the rule would select but for its size
// (selects_but_for_size): that node lacks the value, it is not "not covered" (another tool's
// figures), which let a slow all_reduce log cut at 512 MiB pass every 1 GiB floor. Null if none.
const Record *Evaluator::imported_below_sizes(const Rule &rule, const std::string &host) const {
  const auto it = imported_records_.find(host);
  if (it == imported_records_.end())
    return nullptr;
  for (const auto *r : it->second)
    if (r->status == Status::ok && selects_but_for_size(rule, r->key, r->params))
      return r;
  return nullptr;
}

// A GPU that the node's inventory lists and that a point run on every GPU at once has no part of:
// one missing value for that GPU. The point did not run on it (a burn given fewer GPUs, a GPU
// dropped from CUDA_VISIBLE_DEVICES, or its figures lost), so nothing judged it; left out, the
// node would pass on the GPUs that did run.
void Evaluator::no_record_on_gpus(const Rule &rule, const GpusByPhase &gpus_with_match) {
  for (const auto &[where, seen] : gpus_with_match) {
    const auto &[host, phase] = where;
    if (only_imported(host))
      continue;
    for (const auto &gpu : index_.inventory_gpus(host)) {
      if (seen.count(gpu))
        continue;
      const PartKey key{host, PartKind::gpu, gpu};
      // A rank's point of this phase that failed before it measured this GPU: said so.
      const auto failed = failed_point_of(rule, host, &phase, &gpu);
      ledger_.add_missing(key, missing(rule, rule.metric,
                                       no_record_on_gpu_detail(phase, index_.label_of(key),
                                                               failed ? &*failed : nullptr),
                                       rule.on_missing));
    }
  }
}

} // namespace railgauge::check
