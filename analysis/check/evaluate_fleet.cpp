// Judging a rule's values: against an absolute bound, their fleet, their siblings on the node,
// or one figure of their curve (Evaluator, evaluator.h).
#include <algorithm>

#include <fmt/format.h>

#include "analysis/check/evaluator.h"
#include "analysis/check/fleet_judgement.h"

namespace railgauge::check {
namespace {

using json = nlohmann::json;

std::string fmt_num(double v) { return fmt::format("{:.4g}", v); }

// Number, bool, or (for set comparisons) string/list; anything else is not judgeable.
bool judgeable(const Rule &rule, const json &v) {
  if (rule.op == Op::none_of || rule.op == Op::any_of)
    return v.is_string() || v.is_array() || v.is_number() || v.is_boolean();
  return v.is_number() || v.is_boolean();
}

double number_of(const json &value) {
  return value.is_boolean() ? (value.get<bool>() ? 1 : 0) : value.get<double>();
}

std::string bytes_text(double b) {
  const char *units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  int u = 0;
  while (b >= 1024 && u < 4) {
    b /= 1024;
    ++u;
  }
  return fmt::format("{:.4g} {}", b, units[u]);
}

} // namespace

std::string Evaluator::absolute_bound(const Rule &rule) const {
  if (rule.op == Op::none_of || rule.op == Op::any_of) {
    std::string list;
    for (const auto &v : rule.values)
      list += (list.empty() ? "" : ", ") + v;
    return fmt::format("{} [{}]", to_string(rule.op), list);
  }
  return fmt::format("{} {}", to_string(rule.op), fmt_num(*rule.value));
}

// Judges a value that needs no fleet.
void Evaluator::judge_absolute(const Rule &rule, const PartKey &key, const Source &s,
                               const json &value) {
  const bool sets = rule.op == Op::none_of || rule.op == Op::any_of;
  const bool pass = sets ? values_pass(rule.op, value, rule.values)
                         : compare_pass(rule.op, number_of(value), *rule.value);
  tally(key, rule.id, pass);
  if (pass)
    return;
  Finding f = base_of(rule, s);
  if (!sets)
    f.threshold = *rule.value;
  f.level = rule.severity;
  f.value = value;
  f.bound = absolute_bound(rule);
  add_finding(key, std::move(f));
}

void Evaluator::observe(const Rule &rule, const PartKey &key, Source s, const json &value,
                        const std::string &group) {
  if (!judgeable(rule, value)) {
    tally(key, rule.id, false);
    add_missing(key, missing(rule, s.what, fmt::format("value {} is not a number", value.dump()),
                             rule.on_missing));
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
    tally(o.part, rule.id, v.pass);
    if (!v.judged) {
      add_missing_of(rule, o.part, o.source, v.detail, rule.fleet->on_too_small);
      continue;
    }
    if (v.pass)
      continue;
    Finding f = base_of(rule, o.source);
    fill_fleet_finding(rule, v, f);
    add_finding(o.part, std::move(f));
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
    tally(part, rule.id, v.pass);
    if (v.pass)
      continue;
    Finding f = base_of(rule, list.front()->source);
    fill_fleet_finding(rule, v, f);
    if (f.missing)
      add_missing(part, std::move(f));
    else
      add_finding(part, std::move(f));
  }
}

// The figure a curve rule judges, with the point it names and how it was found.
void Evaluator::judge_curve(const Rule &rule, Curve &curve) {
  auto &pts = curve.points;
  std::sort(pts.begin(), pts.end(),
            [](const CurvePoint &a, const CurvePoint &b) { return a.x < b.x; });
  const CurveSpec &spec = *rule.curve;
  const bool shape = spec.take == CurveTake::largest_over_peak ||
                     spec.take == CurveTake::worst_drop ||
                     spec.take == CurveTake::smallest_over_peak;
  if (shape && static_cast<int>(pts.size()) < spec.min_points) {
    tally(curve.part, rule.id, false);
    add_missing_of(rule, curve.part, pts.back().source,
                   fmt::format("a curve of {} point{} is shorter than min_points {}", pts.size(),
                               pts.size() == 1 ? "" : "s", spec.min_points),
                   Level::info);
    return;
  }
  const auto x_text = [&](double x) {
    return spec.over == "size_bytes" ? bytes_text(x) : fmt_num(x);
  };
  std::size_t at = pts.size() - 1, from = 0;
  double value = pts.back().y;
  std::string how;
  std::size_t best = 0;
  for (std::size_t i = 1; i < pts.size(); ++i)
    if (pts[i].y > pts[best].y)
      best = i;
  switch (spec.take) {
  case CurveTake::largest:
    how = fmt::format("at the largest {} measured, {}", spec.over, x_text(pts[at].x));
    break;
  case CurveTake::peak:
    at = best;
    value = pts[best].y;
    how = fmt::format("best over {} points, at {}", pts.size(), x_text(pts[at].x));
    break;
  case CurveTake::largest_over_peak:
    from = best;
    value = pts[best].y > 0 ? pts.back().y / pts[best].y : 0;
    how = fmt::format("{} at {} against the peak {} at {}", fmt_num(pts.back().y),
                      x_text(pts.back().x), fmt_num(pts[best].y), x_text(pts[best].x));
    break;
  case CurveTake::smallest_over_peak:
    at = 0;
    from = best;
    value = pts[best].y > 0 ? pts.front().y / pts[best].y : 0;
    how = fmt::format("{} at {} against the peak {} at {}", fmt_num(pts.front().y),
                      x_text(pts.front().x), fmt_num(pts[best].y), x_text(pts[best].x));
    break;
  case CurveTake::worst_drop: {
    value = 1;
    std::size_t peak = 0;
    for (std::size_t i = 1; i < pts.size(); ++i) {
      if (pts[peak].y > 0 && pts[i].y / pts[peak].y < value) {
        value = pts[i].y / pts[peak].y;
        at = i;
        from = peak;
      }
      if (pts[i].y > pts[peak].y)
        peak = i;
    }
    how = value < 1 ? fmt::format("falls from {} at {} to {} at {}", fmt_num(pts[from].y),
                                  x_text(pts[from].x), fmt_num(pts[at].y), x_text(pts[at].x))
                    : "never falls";
    break;
  }
  }
  Source s = pts[at].source;
  s.what = fmt::format("{} ({} over {})", s.what, to_string(spec.take), spec.over);
  s.detail = how;
  judge_absolute(rule, curve.part, s, json(value));
}

} // namespace railgauge::check
