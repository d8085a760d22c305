#include "analysis/compare/compare.h"

#include <algorithm>
#include <map>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "analysis/compare/compared_metric.h"
#include "analysis/compare/counted_points.h"
#include "analysis/compare/gpu_models.h"
#include "analysis/compare/noise.h"
#include "analysis/compare/point_matching.h"
#include "analysis/compare/verdicts.h"
#include "harness/error.h"
#include "harness/metric_names.h"

namespace railgauge::compare {

namespace {

// Bad input before any work: fewer than two inputs, a label missing or shared, no tolerance.
void refuse_bad_options(std::size_t inputs, const std::vector<std::string> &labels,
                        const CompareOptions &o) {
  if (inputs < 2)
    throw InputError("compare needs at least two runs", "compare",
                     "give two or more run directories: railgauge compare RUN_A RUN_B");
  if (labels.size() != inputs)
    throw InputError(fmt::format("{} labels for {} runs", labels.size(), inputs), "--label",
                     "give one --label per run, in the same order, or none");
  for (std::size_t i = 0; i < labels.size(); ++i)
    for (std::size_t j = 0; j < i; ++j)
      if (labels[i] == labels[j])
        throw InputError(fmt::format("label '{}' names inputs {} and {}", labels[i], j + 1, i + 1),
                         "--label",
                         "give each input a label of its own: its columns and ratios are named "
                         "by it (x/x told nothing)");
  if (!(o.single_sample_tolerance > 0))
    throw InputError(
        fmt::format("single-sample tolerance of {:g} %", 100 * o.single_sample_tolerance),
        "--single-sample-tolerance",
        "give a percentage above 0, e.g. --single-sample-tolerance 10 (the default)");
}

// Each input's problems (a run that could not be read, a record refused), named by its label.
std::vector<std::string> labelled_problems(const std::vector<analysis::RunSet> &given,
                                           const std::vector<std::string> &labels) {
  std::vector<std::string> problems;
  for (std::size_t i = 0; i < given.size(); ++i)
    for (const auto &problem : given[i].problems)
      problems.push_back(i < labels.size() ? labels[i] + ": " + problem : problem);
  return problems;
}

// Counts the points every input measured and says, in the hint, what the ratios leave out: the
// points one input lacks, those with no figure compared, those read off a curve, and two models.
void say_what_was_not_compared(Comparison &c, const std::vector<analysis::RunSet> &inputs,
                               const ValuesSeen &seen, const KeysIn &key_in,
                               const std::map<std::string, int> &no_figure, int interpolated) {
  for (const auto &p : c.points) {
    // A record that failed is the input's measurement of the point too: not an unmatched one.
    bool every_input = true;
    for (std::size_t i = 0; i < p.sides.size(); ++i)
      every_input = every_input && (p.sides[i] || (i < p.not_ok.size() && !p.not_ok[i].empty()));
    c.matched += every_input;
  }
  if (c.matched < static_cast<int>(c.points.size()))
    c.hint = unmatched_hint(c, seen, key_in);
  // Points dropped without a word: a 3x latency regression of nvbandwidth's latency testcase
  // read as parity over the points left.
  if (!no_figure.empty()) {
    std::vector<std::string> keys;
    for (const auto &[key, n] : no_figure)
      keys.push_back(fmt::format("{} ({})", key, n));
    c.hint += fmt::format("{}not compared: points with no figure compare reads by default, {}; "
                          "--metric NAME compares them",
                          c.hint.empty() ? "" : " ", fmt::join(keys, ", "));
  }
  if (interpolated > 0)
    c.hint += fmt::format("{}{} comparison(s) of a size that only one input measured read the "
                          "other input's value off its curve between the two sizes around it "
                          "(linear in log size; ≈ marks it)",
                          c.hint.empty() ? "" : " ", interpolated);
  // Said first: whatever else the ratios show, they are of two models.
  if (const auto models = different_gpu_models(inputs, c.labels); !models.empty())
    c.hint = models + (c.hint.empty() ? "" : ". " + c.hint);
}

} // namespace

Comparison compare_runs(std::vector<analysis::RunSet> given, const std::vector<std::string> &labels,
                        const CompareOptions &o) {
  // Each GPU of a burn-in phase is a point of its own (params gpu and part), matched to the same
  // GPU of the other runs: a GEMM burn that fell by half on gpu3 shows as gpu3's drop. The runs
  // given are moved, not copied: a copy beside them doubled the memory of a fleet's compare.
  std::vector<analysis::RunSet> inputs;
  std::vector<std::string> problems = labelled_problems(given, labels);
  for (auto &set : given)
    inputs.push_back(analysis::with_per_gpu_parts(std::move(set)));
  given.clear();
  refuse_bad_options(inputs.size(), labels, o);
  Comparison c;
  c.labels = labels;
  c.problems = std::move(problems);
  c.single_sample_tolerance = o.single_sample_tolerance;
  ValuesSeen seen;
  KeysIn key_in;
  const SlotKeys slot_keys = keys_matched_by_slot(inputs, o);
  values_seen(inputs, o, slot_keys, seen, key_in);
  const ContextOf context_of = set_aside_context(c, seen, key_in, inputs.size());
  window_context(inputs, key_in, c);
  Points points;
  ParamsOf params_of;
  collect_points(inputs, o, slot_keys, context_of, c, points, params_of);
  // A metric no record holds compared nothing, said nothing and exited 0: the table's metric
  // column prints "tflops", the option wanted "metrics.tflops".
  const bool any_value = std::any_of(points.begin(), points.end(), [](const auto &point) {
    return std::any_of(point.second.second.begin(), point.second.second.end(),
                       [](const auto &slot) { return !slot.values.empty(); });
  });
  if (o.metric && !any_value)
    throw InputError(fmt::format("no record of the inputs holds the metric '{}'", *o.metric),
                     "--metric",
                     "give a path into a record, e.g. metrics.tflops, metrics.busbw_gbytes_per_s "
                     "or metrics.time_s.median (a bare name is looked for under metrics.)");
  merge_near_sizes(points, params_of);
  Sides sides, curve_sides;
  for (const auto &[id, entry] : points)
    for (const auto &slot : entry.second) {
      sides[id].push_back(side_of(slot));
      // A size where a part failed is no point of its input's curve: the other parts' median
      // would be read into the sizes around it, as if the size had run.
      curve_sides[id].push_back(slot.not_ok.empty() ? sides[id].back() : std::nullopt);
    }
  const Curves curves = curves_of(curve_sides, params_of);
  const CountedPoints counting = counted_points(points, params_of, sides);
  int interpolated = 0;
  Tallies tallies, uncounted;
  std::map<std::string, int> no_figure; // key -> points no input has a number of
  for (const auto &[id, entry] : points) {
    PointComparison p;
    p.key = id.key;
    p.params = params_of[id];
    p.device = id.device;
    p.metric = entry.first;
    p.higher_is_better = !lower_is_better(p.metric);
    p.sides = sides.at(id);
    for (const auto &slot : entry.second)
      p.not_ok.push_back(slot.not_ok);
    if (std::all_of(p.sides.begin(), p.sides.end(), [](const auto &s) { return !s; }) &&
        std::all_of(p.not_ok.begin(), p.not_ok.end(), [](const auto &s) { return s.empty(); })) {
      ++no_figure[p.key]; // no input has a number for this point, nor a record of it that broke
      continue;
    }
    if (const std::string curve = curve_of(id, p.params); !curve.empty()) {
      std::vector<std::optional<Side>> read(p.sides.size());
      for (std::size_t i = 0; i < p.sides.size(); ++i)
        if (!p.sides[i] && p.not_ok[i].empty()) // a point that failed is no gap in a curve
          read[i] = interpolate(curves.at(curve)[i], p.params[metric::kSizeBytes].get<double>());
      if (std::any_of(read.begin(), read.end(), [](const auto &s) { return s.has_value(); }))
        p.interpolated = std::move(read);
    }
    p.counted = counting.counted(p);
    interpolated += judge(p, c.labels, o.single_sample_tolerance, p.counted ? tallies : uncounted);
    c.points.push_back(std::move(p));
  }
  summarize(tallies, c);
  say_what_was_not_compared(c, inputs, seen, key_in, no_figure, interpolated);
  return c;
}

} // namespace railgauge::compare
