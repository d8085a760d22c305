#include "analysis/compare/compare.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <set>

#include <fmt/format.h>

#include "analysis/check/check_result.h"
#include "analysis/check/json_path.h"
#include "harness/error.h"
#include "harness/json_integer.h"
#include "harness/stats.h"

namespace railgauge::compare {
namespace {

using json = nlohmann::json;

std::optional<double> number_at(const json &doc, const std::string &path) {
  const auto found = check::resolve_path(doc, path);
  if (found.size() != 1 || !found[0].value.is_number())
    return std::nullopt;
  return found[0].value.get<double>();
}

// Seconds are better lower (time, latency); rates ("_per_s") and everything else higher.
bool lower_is_better(const std::string &metric) {
  if (metric.ends_with("_per_s"))
    return false;
  return metric.ends_with("_s") || metric.find("time_s.") != std::string::npos ||
         metric.find("latency.") != std::string::npos;
}

std::string fmt_num(double v) { return fmt::format("{:.4g}", v); }

std::string params_text(const json &params) {
  std::string s;
  for (const auto &[k, v] : params.items())
    s += fmt::format("{}{}={}", s.empty() ? "" : " ", k,
                     v.is_string() ? v.get<std::string>() : v.dump());
  return s;
}

std::string family_of(const std::string &key) { return key.substr(0, key.find('.')); }

struct Slot {
  std::vector<double> values;
  std::vector<double> noises;
};

struct PointId {
  std::string key, params, device;
  bool operator<(const PointId &o) const {
    if (key != o.key)
      return key < o.key;
    if (params != o.params)
      return check::natural_less(params, o.params);
    return check::natural_less(device, o.device);
  }
};

using Points = std::map<PointId, std::pair<std::string, std::vector<Slot>>>;

// A point's curve: its key, params but size_bytes, and device; "" when it has no size.
std::string curve_of(const PointId &id, const json &params) {
  if (!params.contains("size_bytes") || !params["size_bytes"].is_number())
    return "";
  json rest = params;
  rest.erase("size_bytes");
  return id.key + "\n" + rest.dump() + "\n" + id.device;
}

// nccl-tests rounds each size down to whole elements on every rank, so "1 GiB" on 80 ranks is
// 1073740800 bytes and on 8 ranks 1073741824. Points of one key and params whose sizes are
// within 0.1% of each other, and that no input holds both of, are one point, under the size
// of the input that comes first.
void merge_near_sizes(Points &points, std::map<PointId, json> &params_of) {
  constexpr double kSameSize = 1e-3;
  std::map<std::string, std::vector<std::pair<double, PointId>>> by_curve; // sorted later
  for (const auto &[id, entry] : points) {
    const json &params = params_of.at(id);
    if (const std::string curve = curve_of(id, params); !curve.empty())
      by_curve[curve].emplace_back(params["size_bytes"].get<double>(), id);
  }
  const auto holds = [](const std::vector<Slot> &slots, std::size_t i) {
    return i < slots.size() && !slots[i].values.empty();
  };
  for (auto &[curve, sizes] : by_curve) {
    std::sort(sizes.begin(), sizes.end(),
              [](const auto &a, const auto &b) { return a.first < b.first; });
    for (std::size_t j = 1; j < sizes.size(); ++j) {
      auto into = points.find(sizes[j - 1].second), from = points.find(sizes[j].second);
      if (into == points.end() || from == points.end() ||
          sizes[j].first - sizes[j - 1].first > kSameSize * sizes[j].first)
        continue;
      auto &a = into->second.second, &b = from->second.second;
      bool disjoint = true;
      for (std::size_t i = 0; i < std::max(a.size(), b.size()); ++i)
        disjoint = disjoint && !(holds(a, i) && holds(b, i));
      if (!disjoint)
        continue;
      // Keep the id of the one the first input holds (its size labels the point).
      std::size_t first_a = a.size(), first_b = b.size();
      for (std::size_t i = a.size(); i-- > 0;)
        if (holds(a, i))
          first_a = i;
      for (std::size_t i = b.size(); i-- > 0;)
        if (holds(b, i))
          first_b = i;
      if (first_b < first_a)
        std::swap(into, from);
      auto &keep = into->second.second, &gone = from->second.second;
      keep.resize(std::max(keep.size(), gone.size()));
      for (std::size_t i = 0; i < gone.size(); ++i)
        if (holds(gone, i))
          keep[i] = std::move(gone[i]);
      if (into->second.first.empty())
        into->second.first = from->second.first;
      params_of.erase(from->first);
      points.erase(from);
      sizes[j].second = into->first; // the next size compares with the merged point
    }
  }
}

// An input's value of a point: the median of its records, and its noise (compare.h).
std::optional<Side> side_of(const Slot &slot) {
  if (slot.values.empty())
    return std::nullopt;
  Side s;
  s.value = railgauge::median(slot.values);
  s.records = static_cast<int>(slot.values.size());
  if (!slot.noises.empty())
    s.noise = railgauge::median(slot.noises);
  if (slot.values.size() >= 2 && s.value != 0) {
    const auto [lo, hi] = std::minmax_element(slot.values.begin(), slot.values.end());
    s.noise = std::max(s.noise.value_or(0), (*hi - *lo) / (2 * std::fabs(s.value)));
  }
  return s;
}

// Each point's side per input (side_of its slots), computed once.
using Sides = std::map<PointId, std::vector<std::optional<Side>>>;

// Per curve and input, the sizes that input measured, ascending, with its side there.
using Curves = std::map<std::string, std::vector<std::vector<std::pair<double, Side>>>>;

Curves curves_of(const Sides &sides, const std::map<PointId, json> &params_of) {
  Curves curves;
  for (const auto &[id, per_point] : sides) {
    const json &params = params_of.at(id);
    const std::string curve = curve_of(id, params);
    if (curve.empty())
      continue;
    auto &per_input = curves[curve];
    per_input.resize(per_point.size());
    for (std::size_t i = 0; i < per_point.size(); ++i)
      if (per_point[i])
        per_input[i].emplace_back(params["size_bytes"].get<double>(), *per_point[i]);
  }
  for (auto &[_, per_input] : curves)
    for (auto &sizes : per_input)
      std::sort(sizes.begin(), sizes.end(),
                [](const auto &a, const auto &b) { return a.first < b.first; });
  return curves;
}

// The value of a measured curve at a size strictly between two of its sizes; none outside them
// (a curve is never extrapolated).
std::optional<Side> interpolate(const std::vector<std::pair<double, Side>> &sizes, double size) {
  const auto above = std::upper_bound(sizes.begin(), sizes.end(), size,
                                      [](double s, const auto &p) { return s < p.first; });
  if (above == sizes.begin() || above == sizes.end())
    return std::nullopt;
  const auto &[lo_size, lo] = *(above - 1);
  const auto &[hi_size, hi] = *above;
  if (!(lo_size < size && size < hi_size) || lo_size <= 0)
    return std::nullopt;
  const double t = std::log(size / lo_size) / std::log(hi_size / lo_size);
  Side s;
  s.value = lo.value + t * (hi.value - lo.value);
  s.records = std::min(lo.records, hi.records);
  if (lo.noise && hi.noise)
    s.noise = std::max(*lo.noise, *hi.noise);
  return s;
}

// Input k's side of p as compared with input `other`: measured, or read off k's curve when
// `other` was measured (a ratio needs one measured side); none when neither was.
const std::optional<Side> &compared_side(const PointComparison &p, std::size_t k,
                                         std::size_t other) {
  if (p.sides[k] || p.interpolated.empty() || !p.sides[other])
    return p.sides[k];
  return p.interpolated[k];
}

using ValuesSeen = std::map<std::string, std::map<std::string, std::vector<std::set<std::string>>>>;

std::string joined_sample(const std::set<std::string> &values) {
  std::string out;
  int n = 0;
  for (const auto &v : values) {
    if (n++ == 3)
      return out + ", ...";
    out += (out.empty() ? "" : ", ") + v;
  }
  return out.empty() ? "-" : out;
}

// Why most points are in one input only: the params whose values differ between the inputs for
// the keys they share, each with a sample of values, and what to do about it.
std::string unmatched_hint(const Comparison &c, const ValuesSeen &seen,
                           const std::map<std::string, std::vector<bool>> &key_in) {
  std::map<std::string, std::vector<std::set<std::string>>> differ; // param -> per input values
  for (const auto &[key, params] : seen) {
    const auto &in = key_in.at(key);
    for (const auto &[name, sets] : params) {
      const std::string &param = name; // a lambda may not capture a structured binding (C++17)
      if (std::any_of(c.context.begin(), c.context.end(),
                      [&](const ParamDifference &d) { return d.param == param; }))
        continue; // already set aside
      std::set<std::set<std::string>> distinct;
      for (std::size_t i = 0; i < sets.size(); ++i)
        if (in[i])
          distinct.insert(sets[i]);
      if (distinct.size() < 2)
        continue;
      auto &values = differ[name];
      values.resize(sets.size());
      for (std::size_t i = 0; i < sets.size(); ++i)
        values[i].insert(sets[i].begin(), sets[i].end());
    }
  }
  std::string hint =
      fmt::format("only {} of {} points are in every input.", c.matched, c.points.size());
  if (differ.empty())
    return hint + " The inputs measured different keys: compare runs of the same benchmarks.";
  hint += " These params differ between the inputs:";
  for (const auto &[name, sets] : differ) {
    hint += " " + name + " (";
    for (std::size_t i = 0; i < sets.size(); ++i)
      hint += fmt::format("{}{}: {}", i ? "; " : "", c.labels[i], joined_sample(sets[i]));
    hint += ")";
  }
  std::string ignorable;
  for (const auto &[name, sets] : differ)
    if (std::find(std::begin(kIdentityParams), std::end(kIdentityParams), name) ==
        std::end(kIdentityParams))
      ignorable += " --ignore-param " + name;
  if (!ignorable.empty())
    hint += ". To match without them:" + ignorable;
  return hint + ".";
}

} // namespace

std::string default_metric(const json &metrics) {
  for (const char *path : {"metrics.busbw_gbytes_per_s", "metrics.bandwidth_gbits_per_s",
                           "metrics.bandwidth_gbytes_per_s", "metrics.tflops",
                           "metrics.latency.p50_s", "metrics.time_s.median"})
    if (number_at(json{{"metrics", metrics}}, path))
      return path;
  return "";
}

std::optional<double> relative_noise(const json &metrics) {
  const json doc = {{"metrics", metrics}};
  const auto p10 = number_at(doc, "metrics.time_s.p10"), p90 = number_at(doc, "metrics.time_s.p90"),
             med = number_at(doc, "metrics.time_s.median");
  if (p10 && p90 && med && *med > 0)
    return (*p90 - *p10) / (2 * *med);
  // A coefficient of variation as the p10..p90 half-width of a normal spread (1.28 sigma).
  constexpr double kP10P90HalfWidthSigmas = 1.2816;
  if (const auto cv = number_at(doc, "metrics.iteration_cv_percent"))
    return kP10P90HalfWidthSigmas * *cv / 100;
  const auto l50 = number_at(doc, "metrics.latency.p50_s"),
             l90 = number_at(doc, "metrics.latency.p90_s");
  if (l50 && l90 && *l50 > 0)
    return (*l90 - *l50) / *l50;
  const auto sd = number_at(doc, "metrics.latency.stdev_s"),
             mean = number_at(doc, "metrics.latency.mean_s");
  if (sd && mean && *mean > 0)
    return kP10P90HalfWidthSigmas * *sd / *mean;
  return std::nullopt;
}

Comparison compare_runs(const std::vector<analysis::RunSet> &inputs,
                        const std::vector<std::string> &labels, const CompareOptions &o) {
  if (inputs.size() < 2)
    throw InputError("compare needs at least two runs", "compare",
                     "give two or more run directories: railgauge compare RUN_A RUN_B");
  if (labels.size() != inputs.size())
    throw InputError(fmt::format("{} labels for {} runs", labels.size(), inputs.size()), "--label",
                     "give one --label per run, in the same order, or none");
  if (!(o.single_sample_tolerance > 0))
    throw InputError(fmt::format("single-sample tolerance {:g}", o.single_sample_tolerance),
                     "--single-sample-tolerance", "give a relative difference above 0, e.g. 0.1");
  Comparison c;
  c.labels = labels;
  c.single_sample_tolerance = o.single_sample_tolerance;
  const auto matched_params = [&](const Record &r) {
    json params = r.params;
    for (const auto &name : o.ignore_params)
      params.erase(name);
    return params;
  };
  // Per key and param, each input's values ("-": absent), to find the context params.
  std::map<std::string, std::map<std::string, std::vector<std::set<std::string>>>> seen;
  std::map<std::string, std::vector<bool>> key_in;
  for (std::size_t i = 0; i < inputs.size(); ++i)
    for (const auto &run : inputs[i].runs)
      for (const auto &r : run.records) {
        if (r.status != Status::ok)
          continue;
        auto &in = key_in[r.key];
        in.resize(inputs.size());
        in[i] = true;
        const json params = matched_params(r); // items() of a temporary would dangle
        for (const auto &[name, value] : params.items()) {
          auto &sets = seen[r.key][name];
          sets.resize(inputs.size());
          sets[i].insert(value.is_string() ? value.get<std::string>() : value.dump());
        }
      }
  std::map<std::string, std::set<std::string>> context_of; // key -> params set aside
  std::map<std::string, std::vector<std::set<std::string>>> context_values;
  for (const auto &[key, params] : seen) {
    const auto &in = key_in[key];
    if (std::count(in.begin(), in.end(), true) < 2)
      continue;
    for (auto [name, sets] : params) {
      if (std::find(std::begin(kIdentityParams), std::end(kIdentityParams), name) !=
          std::end(kIdentityParams))
        continue;
      bool one_each = true;
      for (std::size_t i = 0; i < sets.size(); ++i) {
        if (in[i] && sets[i].empty())
          sets[i].insert("-"); // the key's records lack the param: one value, "absent"
        one_each = one_each && (!in[i] || sets[i].size() == 1);
      }
      std::set<std::string> distinct;
      for (std::size_t i = 0; i < sets.size(); ++i)
        if (in[i])
          distinct.insert(*sets[i].begin());
      if (!one_each || distinct.size() < 2)
        continue;
      context_of[key].insert(name);
      auto &values = context_values[name];
      values.resize(inputs.size());
      for (std::size_t i = 0; i < sets.size(); ++i)
        values[i].insert(sets[i].begin(), sets[i].end());
    }
  }
  for (const auto &[name, sets] : context_values) {
    ParamDifference d{name, {}};
    for (const auto &values : sets) {
      std::string joined;
      for (const auto &v : values)
        joined += (joined.empty() ? "" : ", ") + v;
      d.values.push_back(joined.empty() ? "-" : joined);
    }
    c.context.push_back(std::move(d));
  }
  // point -> metric chosen, and per input its slot
  std::map<PointId, std::pair<std::string, std::vector<Slot>>> points;
  std::map<PointId, json> params_of;
  for (std::size_t i = 0; i < inputs.size(); ++i) {
    std::vector<std::string> dirs;
    for (const auto &run : inputs[i].runs)
      dirs.push_back(run.dir);
    std::sort(dirs.begin(), dirs.end());
    c.inputs.push_back(dirs);
    for (const auto &run : inputs[i].runs)
      for (const auto &r : run.records) {
        if (r.status != Status::ok)
          continue;
        json params = matched_params(r);
        if (const auto it = context_of.find(r.key); it != context_of.end())
          for (const auto &name : it->second)
            params.erase(name);
        const std::string device = o.match_device ? r.host + " " + r.device.dump() : "";
        const PointId id{r.key, params.dump(), device};
        auto &entry = points[id];
        if (entry.second.empty())
          entry.second.resize(inputs.size());
        if (entry.first.empty())
          entry.first = o.metric ? *o.metric : default_metric(r.metrics);
        params_of[id] = params;
        const json doc = {{"metrics", r.metrics}, {"params", r.params}};
        const auto v = entry.first.empty() ? std::nullopt : number_at(doc, entry.first);
        if (!v)
          continue;
        entry.second[i].values.push_back(*v);
        if (const auto n = relative_noise(r.metrics))
          entry.second[i].noises.push_back(*n);
      }
  }
  merge_near_sizes(points, params_of);
  Sides sides;
  for (const auto &[id, entry] : points)
    for (const auto &slot : entry.second)
      sides[id].push_back(side_of(slot));
  const Curves curves = curves_of(sides, params_of);
  int interpolated = 0;
  std::map<std::pair<std::string, int>, std::vector<double>> speedups_by_family, speedups_by_key;
  std::map<std::pair<std::string, int>, Summary> fam, keys;
  for (const auto &[id, entry] : points) {
    PointComparison p;
    p.key = id.key;
    p.params = params_of[id];
    p.device = id.device;
    p.metric = entry.first;
    p.higher_is_better = !lower_is_better(p.metric);
    p.sides = sides.at(id);
    if (std::all_of(p.sides.begin(), p.sides.end(), [](const auto &s) { return !s; }))
      continue; // no input has a number for this point
    if (const std::string curve = curve_of(id, p.params); !curve.empty()) {
      std::vector<std::optional<Side>> read(p.sides.size());
      for (std::size_t i = 0; i < p.sides.size(); ++i)
        if (!p.sides[i])
          read[i] = interpolate(curves.at(curve)[i], p.params["size_bytes"].get<double>());
      if (std::any_of(read.begin(), read.end(), [](const auto &s) { return s.has_value(); }))
        p.interpolated = std::move(read);
    }
    for (std::size_t i = 1; i < p.sides.size(); ++i) {
      const auto &a = compared_side(p, 0, i), &b = compared_side(p, i, 0);
      interpolated += a && b && (!p.sides[0] || !p.sides[i]);
      if (!a || !b || a->value == 0) {
        p.ratio.emplace_back();
        p.verdict.push_back(!a && !b ? "in neither"
                            : !a     ? "only in " + c.labels[i]
                            : !b     ? "only in " + c.labels[0]
                                     : "baseline is zero");
        continue;
      }
      const double ratio = b->value / a->value;
      p.ratio.push_back(ratio);
      const double speedup = p.higher_is_better ? ratio : 1 / ratio;
      auto &fs = fam[{family_of(p.key), static_cast<int>(i)}];
      auto &ks = keys[{p.key, static_cast<int>(i)}];
      std::string verdict;
      const bool one_sample = !a->noise || !b->noise; // an average: no spread to judge by
      if (one_sample && std::fabs(speedup - 1) > o.single_sample_tolerance) {
        const std::string beyond =
            fmt::format(" (single sample, > {:g} %)", 100 * o.single_sample_tolerance);
        verdict = (speedup > 1 ? "better" : "worse") + beyond;
        ++(speedup > 1 ? fs.better : fs.worse);
        ++(speedup > 1 ? ks.better : ks.worse);
      } else if (one_sample) {
        verdict = "single sample";
        ++fs.single_sample;
        ++ks.single_sample;
      } else if (std::fabs(ratio - 1) <= *a->noise + *b->noise) {
        verdict = "within noise";
        ++fs.within_noise;
        ++ks.within_noise;
      } else if (speedup > 1) {
        verdict = "better";
        ++fs.better;
        ++ks.better;
      } else {
        verdict = "worse";
        ++fs.worse;
        ++ks.worse;
      }
      p.verdict.push_back(verdict);
      if (speedup > 0) {
        speedups_by_family[{family_of(p.key), static_cast<int>(i)}].push_back(std::log(speedup));
        speedups_by_key[{p.key, static_cast<int>(i)}].push_back(std::log(speedup));
      }
    }
    c.points.push_back(std::move(p));
  }
  const auto finish = [](auto &summaries, auto &logs, std::vector<Summary> &out) {
    for (auto &[k, s] : summaries) {
      s.group = k.first;
      s.input = k.second;
      const auto &l = logs[k];
      s.points = static_cast<int>(l.size());
      double sum = 0;
      for (double x : l)
        sum += x;
      s.geomean_speedup = l.empty() ? 1 : std::exp(sum / static_cast<double>(l.size()));
      out.push_back(s);
    }
  };
  finish(fam, speedups_by_family, c.families);
  finish(keys, speedups_by_key, c.keys);
  for (const auto &p : c.points)
    c.matched += std::all_of(p.sides.begin(), p.sides.end(), [](const auto &s) { return s; });
  if (!c.points.empty() && 2 * c.matched < static_cast<int>(c.points.size()))
    c.hint = unmatched_hint(c, seen, key_in);
  if (interpolated > 0)
    c.hint += fmt::format("{}{} comparison(s) of a size that only one input measured read the "
                          "other input's value off its curve between the two sizes around it "
                          "(linear in log size; ≈ marks it)",
                          c.hint.empty() ? "" : " ", interpolated);
  return c;
}

namespace {

json side_json(const std::optional<Side> &s) {
  return s ? json{{"value", s->value},
                  {"noise", s->noise ? json(*s->noise) : json(nullptr)},
                  {"records", s->records}}
           : json(nullptr);
}

} // namespace

json to_json(const Comparison &c) {
  json points = json::array();
  for (const auto &p : c.points) {
    json sides = json::array();
    for (const auto &s : p.sides)
      sides.push_back(side_json(s));
    json ratios = json::array();
    for (const auto &r : p.ratio)
      ratios.push_back(r ? json(*r) : json(nullptr));
    json point = {{"key", p.key},
                  {"params", p.params},
                  {"device", p.device},
                  {"metric", p.metric},
                  {"higher_is_better", p.higher_is_better},
                  {"sides", sides},
                  {"ratio", ratios},
                  {"verdict", p.verdict}};
    if (!p.interpolated.empty()) {
      json read = json::array();
      for (const auto &s : p.interpolated)
        read.push_back(side_json(s));
      point["interpolated"] = read;
    }
    points.push_back(point);
  }
  const auto summaries = [](const std::vector<Summary> &list) {
    json out = json::array();
    for (const auto &s : list)
      out.push_back({{"group", s.group},
                     {"input", s.input},
                     {"points", s.points},
                     {"geomean_speedup", s.geomean_speedup},
                     {"better", s.better},
                     {"worse", s.worse},
                     {"within_noise", s.within_noise},
                     {"single_sample", s.single_sample}});
    return out;
  };
  json context = json::array();
  for (const auto &d : c.context)
    context.push_back({{"param", d.param}, {"values", d.values}});
  return {{"schema", kCompareSchema},  {"labels", c.labels},
          {"inputs", c.inputs},        {"context", context},
          {"matched", c.matched},      {"hint", c.hint},
          {"points", points},          {"families", summaries(c.families)},
          {"keys", summaries(c.keys)}, {"single_sample_tolerance", c.single_sample_tolerance}};
}

namespace {

const char *const kComparisonFix = "regenerate it with railgauge compare --json FILE";

// A count in a comparison file.
int count_of(const json &j) {
  const auto count = json_integer<int>(j);
  if (!count || *count < 0)
    throw InputError(fmt::format("malformed comparison: {} is not a count", j.dump()), "report",
                     kComparisonFix);
  return *count;
}

// A value, ratio or noise.
double number_of(const json &j) {
  if (!j.is_number())
    throw InputError(fmt::format("malformed comparison: {} is not a number", j.dump()), "report",
                     kComparisonFix);
  return j.get<double>();
}

std::optional<Side> side_from_json(const json &s) {
  if (s.is_null())
    return std::nullopt;
  Side side;
  side.value = number_of(s.at("value"));
  if (!s.at("noise").is_null())
    side.noise = number_of(s.at("noise"));
  side.records = count_of(s.at("records"));
  return side;
}

// The shape the renderers index by: one input per label, one side per input, one ratio and one
// verdict per input after the first, summaries against an input that exists.
std::string shape_problem(const Comparison &c) {
  if (c.labels.size() < 2 || c.inputs.size() != c.labels.size())
    return fmt::format("{} labels for {} inputs (at least 2, one each)", c.labels.size(),
                       c.inputs.size());
  for (const auto &p : c.points)
    if (p.sides.size() != c.labels.size() || p.ratio.size() + 1 != c.labels.size() ||
        p.verdict.size() + 1 != c.labels.size() ||
        (!p.interpolated.empty() && p.interpolated.size() != c.labels.size()))
      return fmt::format("point {} has {} sides, {} ratios, {} verdicts and {} interpolated "
                         "sides for {} inputs",
                         p.key, p.sides.size(), p.ratio.size(), p.verdict.size(),
                         p.interpolated.size(), c.labels.size());
  for (const auto *list : {&c.families, &c.keys})
    for (const auto &s : *list)
      if (s.input < 1 || static_cast<std::size_t>(s.input) >= c.labels.size())
        return fmt::format("summary {} compares input {}, which is not one after the first",
                           s.group, s.input);
  return "";
}

} // namespace

Comparison comparison_from_json(const json &j) {
  if (!j.is_object() || !j.contains("schema") || j.at("schema") != kCompareSchema)
    throw InputError("not a comparison", "report",
                     fmt::format("give the JSON that `railgauge compare --json FILE` wrote "
                                 "(schema {})",
                                 kCompareSchema));
  Comparison c;
  try {
    c.labels = j.at("labels").get<std::vector<std::string>>();
    c.inputs = j.at("inputs").get<std::vector<std::vector<std::string>>>();
    for (const auto &pj : j.at("points")) {
      PointComparison p;
      p.key = pj.at("key").get<std::string>();
      p.params = pj.at("params");
      p.device = pj.at("device").get<std::string>();
      p.metric = pj.at("metric").get<std::string>();
      p.higher_is_better = pj.at("higher_is_better").get<bool>();
      for (const auto &s : pj.at("sides"))
        p.sides.push_back(side_from_json(s));
      // Files of before interpolation have none.
      for (const auto &s : pj.value("interpolated", json::array()))
        p.interpolated.push_back(side_from_json(s));
      for (const auto &r : pj.at("ratio"))
        p.ratio.push_back(r.is_null() ? std::nullopt : std::optional<double>(number_of(r)));
      p.verdict = pj.at("verdict").get<std::vector<std::string>>();
      c.points.push_back(std::move(p));
    }
    const auto read = [](const json &list, std::vector<Summary> &out) {
      for (const auto &s : list)
        out.push_back({s.at("group").get<std::string>(), count_of(s.at("input")),
                       count_of(s.at("points")), number_of(s.at("geomean_speedup")),
                       count_of(s.at("better")), count_of(s.at("worse")),
                       count_of(s.at("within_noise")),
                       s.contains("single_sample") ? count_of(s.at("single_sample")) : 0});
    };
    read(j.at("families"), c.families);
    read(j.at("keys"), c.keys);
    // Files of before the context and hint were recorded have neither.
    for (const auto &d : j.value("context", json::array()))
      c.context.push_back(
          {d.at("param").get<std::string>(), d.at("values").get<std::vector<std::string>>()});
    c.matched = j.contains("matched") ? count_of(j.at("matched")) : 0;
    c.hint = j.value("hint", "");
    c.single_sample_tolerance = j.value("single_sample_tolerance", kSingleSampleTolerance);
  } catch (const json::exception &e) {
    throw InputError(fmt::format("malformed comparison: {}", e.what()), "report", kComparisonFix);
  }
  if (const auto problem = shape_problem(c); !problem.empty())
    throw InputError(fmt::format("malformed comparison: {}", problem), "report", kComparisonFix);
  return c;
}

std::string value_text(const PointComparison &p, std::size_t input) {
  if (p.sides[input])
    return fmt_num(p.sides[input]->value);
  if (input < p.interpolated.size() && p.interpolated[input])
    return "≈" + fmt_num(p.interpolated[input]->value);
  return "-";
}

namespace {

std::string noise_text(const std::optional<Side> &s) {
  return s && s->noise ? fmt::format("±{:.1f}%", *s->noise * 100) : "-";
}

// The params every point has with the same value: said once above the table, not per row.
json common_params(const Comparison &c) {
  if (c.points.size() < 2)
    return json::object();
  json common = c.points.front().params;
  for (const auto &p : c.points)
    for (auto it = common.begin(); it != common.end();)
      if (!p.params.contains(it.key()) || p.params.at(it.key()) != it.value())
        it = common.erase(it);
      else
        ++it;
  return common;
}

std::vector<std::vector<std::string>> rows(const Comparison &c, bool header) {
  std::vector<std::vector<std::string>> out;
  const json common = common_params(c);
  if (header) {
    std::vector<std::string> h = {"key", "params", "metric"};
    for (const auto &l : c.labels)
      h.push_back(l);
    for (std::size_t i = 1; i < c.labels.size(); ++i) {
      h.push_back(c.labels[i] + "/" + c.labels[0]);
      h.push_back("noise");
      h.push_back("verdict");
    }
    out.push_back(h);
  }
  for (const auto &p : c.points) {
    json own = p.params;
    for (const auto &[name, _] : common.items())
      own.erase(name);
    std::vector<std::string> row = {
        p.key, params_text(own) + (p.device.empty() ? "" : " " + p.device),
        p.metric.starts_with("metrics.") ? p.metric.substr(8) : p.metric};
    for (std::size_t i = 0; i < p.sides.size(); ++i)
      row.push_back(value_text(p, i));
    for (std::size_t i = 1; i < p.sides.size(); ++i) {
      row.push_back(p.ratio[i - 1] ? fmt::format("{:.3f}", *p.ratio[i - 1]) : "-");
      const auto &a = compared_side(p, 0, i), &b = compared_side(p, i, 0);
      row.push_back(a && b && a->noise && b->noise
                        ? fmt::format("±{:.1f}%", (*a->noise + *b->noise) * 100)
                        : noise_text(a ? a : b));
      row.push_back(p.verdict[i - 1]);
    }
    out.push_back(row);
  }
  return out;
}

} // namespace

std::vector<std::string> preamble(const Comparison &c) {
  std::vector<std::string> lines;
  if (!c.hint.empty())
    lines.push_back("WARNING: " + c.hint);
  if (!c.context.empty()) {
    std::string line = "Matched without these params, which differ between the inputs:";
    for (const auto &d : c.context) {
      line += " " + d.param + " (";
      for (std::size_t i = 0; i < d.values.size(); ++i)
        line += fmt::format("{}{}: {}", i ? "; " : "", c.labels[i], d.values[i]);
      line += ")";
    }
    lines.push_back(line);
  }
  if (const json common = common_params(c); !common.empty())
    lines.push_back("Every point has: " + params_text(common));
  return lines;
}

namespace {

std::string summary_heading(const Comparison &c) {
  std::string s = "Comparison of";
  for (std::size_t i = 0; i < c.labels.size(); ++i)
    s += fmt::format("{} {} ({} run{})", i ? "," : "", c.labels[i], c.inputs[i].size(),
                     c.inputs[i].size() == 1 ? "" : "s");
  return s;
}

} // namespace

std::string render_table(const Comparison &c) {
  std::string out = summary_heading(c) + "\n";
  for (const auto &line : preamble(c))
    out += line + "\n";
  out += fmt::format("Per point: each input's median value, ratio to the first input, noise "
                     "(both inputs' repetition spread, relative, added) and whether the "
                     "difference exceeds it; a single sample has no spread, and its difference "
                     "counts beyond {:g} %\n",
                     100 * c.single_sample_tolerance);
  const auto table = rows(c, true);
  std::vector<std::size_t> w(table.front().size(), 0);
  for (const auto &r : table)
    for (std::size_t i = 0; i < r.size(); ++i)
      w[i] = std::max(w[i], r[i].size());
  for (const auto &r : table) {
    std::string line;
    for (std::size_t i = 0; i < r.size(); ++i)
      line += fmt::format("{:<{}}", r[i], i + 1 < r.size() ? w[i] + 2 : 0);
    out += line + "\n";
  }
  out += "\nSummary per family: geometric mean of the speedup (> 1: the second input is better; "
         "time and latency inverted)\n";
  for (const auto &s : c.families)
    out += fmt::format("{:<12} {} vs {}: {:.3f} over {} point{} ({} better, {} worse, {} "
                       "within noise, {} single sample{} within {:g} %)\n",
                       s.group, c.labels[s.input], c.labels[0], s.geomean_speedup, s.points,
                       s.points == 1 ? "" : "s", s.better, s.worse, s.within_noise, s.single_sample,
                       s.single_sample == 1 ? "" : "s", 100 * c.single_sample_tolerance);
  return out;
}

std::string render_markdown(const Comparison &c) {
  std::string out = "# " + summary_heading(c) + "\n\n";
  for (const auto &line : preamble(c))
    out += line + "\n\n";
  out += "## Summary per family\n\n"
         "Geometric mean of the speedup over the points compared (> 1: better than " +
         c.labels[0] +
         "; time and latency inverted).\n\n"
         "| family | compared | speedup | points | better | worse | within noise | "
         "single sample within " +
         fmt::format("{:g}", 100 * c.single_sample_tolerance) +
         " % |\n"
         "|---|---|---|---|---|---|---|---|\n";
  for (const auto &s : c.families)
    out += fmt::format("| {} | {} vs {} | {:.3f} | {} | {} | {} | {} | {} |\n", s.group,
                       c.labels[s.input], c.labels[0], s.geomean_speedup, s.points, s.better,
                       s.worse, s.within_noise, s.single_sample);
  out += "\n## Per point\n\n";
  const auto table = rows(c, true);
  for (std::size_t r = 0; r < table.size(); ++r) {
    std::string line = "|";
    for (const auto &cell : table[r]) {
      std::string esc;
      for (char ch : cell)
        esc += ch == '|' ? std::string("\\|") : std::string(1, ch);
      line += " " + esc + " |";
    }
    out += line + "\n";
    if (r == 0) {
      out += "|";
      for (std::size_t i = 0; i < table[0].size(); ++i)
        out += "---|";
      out += "\n";
    }
  }
  return out;
}

} // namespace railgauge::compare
