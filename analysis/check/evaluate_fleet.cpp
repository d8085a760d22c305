// Judging a rule's values: against an absolute bound, their fleet, their siblings on the node,
// or one figure of their curve (Evaluator, evaluator.h).
#include <algorithm>

#include <fmt/format.h>

#include "analysis/check/absolute_judgement.h"
#include "analysis/check/curve_figure.h"
#include "analysis/check/evaluator.h"
#include "analysis/check/fleet_judgement.h"

namespace railgauge::check {
namespace {

using json = nlohmann::json;

} // namespace

// Judges a value that needs no fleet.
void Evaluator::judge_absolute(const Rule &rule, const PartKey &key, const Source &s,
                               const json &value) {
  const bool pass = absolute_pass(rule, value);
  ledger_.tally(key, rule.id, pass);
  if (pass)
    return;
  Finding f = base_of(rule, s);
  fill_absolute_finding(rule, value, f);
  ledger_.add_finding(key, std::move(f));
}

void Evaluator::observe(const Rule &rule, const PartKey &key, Source s, const json &value,
                        const std::string &group) {
  if (!judgeable(rule, value)) {
    ledger_.tally(key, rule.id, false);
    ledger_.add_missing(key,
                        missing(rule, s.what, fmt::format("value {} is not a number", value.dump()),
                                unjudgeable_level(rule, value)));
    return;
  }
  if (!rule.fleet) {
    judge_absolute(rule, key, s, value);
    return;
  }
  fleets_[group].push_back({key, std::move(s), number_of(value)});
}

void Evaluator::judge_fleets(const Rule &rule) {
  for (auto &[group, obs] : fleets_) {
    if (rule.fleet->per_node)
      judge_siblings(rule, obs);
    else
      judge_fleet(rule, obs);
  }
  fleets_.clear();
}

void Evaluator::judge_fleet(const Rule &rule, std::vector<Observation> &obs) {
  std::vector<double> values;
  values.reserve(obs.size());
  for (const auto &o : obs)
    values.push_back(o.value);
  const auto verdicts = judge_fleet_values(rule, values);
  for (std::size_t i = 0; i < obs.size(); ++i) {
    const auto &o = obs[i];
    const auto &v = verdicts[i];
    ledger_.tally(o.part, rule.id, v.pass);
    if (!v.judged) {
      add_missing_of(rule, o.part, o.source, v.detail, rule.fleet->on_too_small);
      continue;
    }
    if (v.pass)
      continue;
    Finding f = base_of(rule, o.source);
    fill_fleet_finding(rule, v, f);
    ledger_.add_finding(o.part, std::move(f));
  }
}

// `scope: node`: each part of one node and point against its siblings (the node's other
// parts), each part at the median of its own values (judge_sibling_values).
void Evaluator::judge_siblings(const Rule &rule, std::vector<Observation> &obs) {
  std::map<PartKey, std::vector<Observation *>> by_part;
  for (auto &o : obs)
    by_part[o.part].push_back(&o);
  std::vector<std::vector<double>> values;
  for (const auto &[part, list] : by_part) {
    values.emplace_back();
    for (const auto *o : list)
      values.back().push_back(o->value);
  }
  const auto verdicts = judge_sibling_values(rule, values);
  std::size_t i = 0;
  for (auto &[part, list] : by_part) {
    const auto &v = verdicts[i++];
    ledger_.tally(part, rule.id, v.pass);
    if (v.pass)
      continue;
    Finding f = base_of(rule, list.front()->source);
    fill_fleet_finding(rule, v, f);
    if (v.own_values > 1)
      f.noise_rel.reset(); // a median of several values: not the first value's noise
    if (f.missing)
      ledger_.add_missing(part, std::move(f));
    else
      ledger_.add_finding(part, std::move(f));
  }
}

// The figure a curve rule judges (curve_figure.h), with the point it names and how it was found.
void Evaluator::judge_curve(const Rule &rule, Curve &curve) {
  auto &pts = curve.points;
  std::sort(pts.begin(), pts.end(),
            [](const CurvePoint &a, const CurvePoint &b) { return a.x < b.x; });
  std::vector<double> xs, ys;
  for (const auto &p : pts) {
    xs.push_back(p.x);
    ys.push_back(p.y);
  }
  const CurveSpec &spec = *rule.curve;
  auto figure = curve_figure(spec, xs, ys);
  if (figure.too_short) {
    ledger_.tally(curve.part, rule.id, false);
    add_missing_of(rule, curve.part, pts[figure.at].source, std::move(figure.how), Level::info);
    return;
  }
  Source s = pts[figure.at].source;
  // A ratio of two points is as noisy as both (Evaluator::noise_of); of a point to itself it is
  // exactly 1, and its noise unknown.
  if (figure.divided_by && *figure.divided_by == figure.at)
    s.timed = false;
  else if (figure.divided_by)
    s.divided_by = pts[*figure.divided_by].source.record;
  s.what = fmt::format("{} ({} over {})", s.what, to_string(spec.take), spec.over);
  s.detail = std::move(figure.how);
  judge_absolute(rule, curve.part, s, json(figure.value));
}

} // namespace railgauge::check
