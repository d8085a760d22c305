#include "analysis/compare/noise.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <string_view>
#include <vector>

#include "analysis/compare/compared_metric.h"
#include "harness/metric_names.h"
#include "harness/noise_bound.h"
#include "harness/stats.h"
#include "records/burn_figure.h"

namespace railgauge::compare {

using json = nlohmann::json;

namespace {

// The p10..p90 half-width of a figure's seconds over their median; none for a median <= 0.
std::optional<double> seconds_spread(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  const double mid = railgauge::median(values);
  if (mid <= 0)
    return std::nullopt;
  return (railgauge::percentile_of_sorted(values, 0.9) -
          railgauge::percentile_of_sorted(values, 0.1)) /
         (2 * mid);
}

// A burn-in GPU's figure is the median of its window, not of timed samples, but it keeps the
// figure second by second (metrics.series: [{"t_s", "tflops"}] or [{"t_s",
// "bandwidth_gbytes_per_s"}]): the spread of those seconds, p10..p90 half-width over their
// median, is the figure's noise, so that compare judges a co-tenant's drop against it rather than
// as a single sample. Only the seconds the figure is the median of count: those from settle_s on
// (harness/rate_series.h). The warm-up seconds before it (743 and 746 TFLOP/s against a settled
// 718 on the committed H200) once widened the noise so that a 1.5 % drop read "within noise".
std::optional<double> series_noise(const json &metrics) {
  if (!metrics.contains(metric::kPerGpuSeries) || !metrics[metric::kPerGpuSeries].is_array())
    return std::nullopt;
  constexpr std::size_t kLeastSeconds = 3;
  const json settle = metrics.value("settle_s", json());
  const double settle_s = settle.is_number() ? settle.get<double>() : 0;
  for (const auto &burn : records::kBurnFigures) {
    const char *figure = burn.metric;
    std::vector<double> values;
    for (const auto &s : metrics[metric::kPerGpuSeries])
      if (s.is_object() && s.contains(figure) && s[figure].is_number() &&
          !(s.contains("t_s") && s["t_s"].is_number() && s["t_s"].get<double>() < settle_s))
        values.push_back(s[figure].get<double>());
    if (values.size() < kLeastSeconds)
      continue;
    return seconds_spread(std::move(values));
  }
  return std::nullopt;
}

// The spread of one point's values over an input's records (GPUs, ranks, nodes), as a half-width:
// min to max for a few, p10 to p90 from kLeastForPercentiles on. Min to max over a fleet made one
// slow node of 250 the whole fleet's noise (+-10.6 %), and a 9 % drop of every node read "within
// noise"; that node is check's to name, not compare's.
constexpr std::size_t kLeastForPercentiles = 10;

double spread_over_records(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  if (values.size() < kLeastForPercentiles)
    return (values.back() - values.front()) / 2;
  return (railgauge::percentile_of_sorted(values, 0.9) -
          railgauge::percentile_of_sorted(values, 0.1)) /
         2;
}

// The spread of a record's round trips under `metrics.<distribution>` (perftest, railgauge's verbs
// latency, a loaded probe's `latency` and `latency_idle`): the noise of those latency figures.
std::optional<double> round_trip_noise(const json &metrics, const std::string &distribution) {
  const json doc = {{"metrics", metrics}};
  const std::string at = "metrics." + distribution + ".";
  const auto l50 = number_at(doc, at + "p50_s"), l90 = number_at(doc, at + "p90_s"),
             low = number_at(doc, at + "min_s");
  const bool body = l50 && low && *l50 > 0 && *low < *l50;
  if (l50 && l90 && *l50 > 0) {
    // Round trips that stall for milliseconds put the p90 among them: Soft-RoCE's write_lat
    // with p50 11.5 us and p90 40 ms read +-347120 %, and a probe behind a bulk WRITE +-26454 %,
    // so no difference could be seen. What moves such a median from run to run is the share of
    // stalls, which slides it within the body: two runs of the same script's write_lat read
    // 11.51 and 8.96 us (22 %), their bodies 9.5 us to the median and above. The half-width is
    // then the body's whole span below the median, 1.28 x (p50 - min) / p50: +-22 % there.
    constexpr double kStalledTail = 3; // p90 over p50: the tail is another mode, not a spread
    if (*l90 > kStalledTail * *l50 && body)
      return kP10P90HalfWidthSigmas * (*l50 - *low) / *l50;
    return (*l90 - *l50) / *l50;
  }
  const auto sd = number_at(doc, at + "stdev_s"), mean = number_at(doc, at + "mean_s");
  if (!sd || !mean || *mean <= 0)
    return std::nullopt;
  const double from_stdev = kP10P90HalfWidthSigmas * *sd / *mean;
  // perftest prints no p90, and a few slow iterations make its stdev the tail's: the MOC
  // ib_read_lat log whose 524288 B maximum is 84 x its typical made a band of +-270 % around a
  // median 1 % above its minimum. What is compared is the median, so the spread of the body is
  // read from below it: the minimum of a latency run of >= 100 iterations lies about 2.33 sigma
  // under the median (its 1 % quantile), so p50 - min, over 2.33, is a sigma at most.
  if (body) {
    constexpr double kMinSigmasBelowMedian = 2.326;
    return std::min(from_stdev,
                    kP10P90HalfWidthSigmas * (*l50 - *low) / kMinSigmasBelowMedian / *l50);
  }
  return from_stdev;
}

// The noise of the repetitions a record timed, whatever figure it derived from them.
std::optional<double> repetition_noise(const json &metrics) {
  if (const auto timed = railgauge::relative_noise(metrics))
    return timed;
  if (const auto seconds = series_noise(metrics))
    return seconds;
  const json doc = {{"metrics", metrics}};
  // A coefficient of variation as the p10..p90 half-width of a normal spread.
  if (const auto cv = number_at(doc, "metrics.iteration_cv_percent"))
    return kP10P90HalfWidthSigmas * *cv / 100;
  return std::nullopt;
}

} // namespace

std::optional<double> relative_noise(const json &metrics) {
  if (const auto repeated = repetition_noise(metrics))
    return repeated;
  return round_trip_noise(metrics, "latency");
}

namespace {

// The p10..p90 half-width over the median of a telemetry figure's seconds: for
// metrics.telemetry.during.temperature_c.median, the temperature_c of each second in
// metrics.telemetry.during.series. None without a statistic's suffix or three such seconds.
std::optional<double> seconds_noise(const json &metrics, const std::string &metric) {
  constexpr std::string_view kMetrics = "metrics.";
  if (!metric.starts_with(kMetrics))
    return std::nullopt;
  std::vector<std::string> parts;
  for (std::size_t at = kMetrics.size(); at <= metric.size();) {
    const auto dot = std::min(metric.find('.', at), metric.size());
    parts.push_back(metric.substr(at, dot - at));
    at = dot + 1;
  }
  constexpr std::array<std::string_view, 4> kStatistics{"median", "mean", "min", "max"};
  if (parts.size() < 2 ||
      std::find(kStatistics.begin(), kStatistics.end(), parts.back()) == kStatistics.end())
    return std::nullopt;
  const std::string &name = parts[parts.size() - 2];
  const json *parent = &metrics;
  for (std::size_t i = 0; i + 2 < parts.size(); ++i) {
    if (!parent->is_object() || !parent->contains(parts[i]))
      return std::nullopt;
    parent = &(*parent)[parts[i]];
  }
  if (!parent->is_object() || !parent->contains(metric::kPerGpuSeries) ||
      !(*parent)[metric::kPerGpuSeries].is_array())
    return std::nullopt;
  std::vector<double> values;
  for (const auto &second : (*parent)[metric::kPerGpuSeries])
    if (second.is_object() && second.contains(name) && second[name].is_number())
      values.push_back(second[name].get<double>());
  if (values.size() < 3)
    return std::nullopt;
  return seconds_spread(std::move(values));
}

} // namespace

std::optional<double> metric_noise(const json &metrics, const std::string &metric) {
  // A telemetry figure (a temperature, a power, a clock) has the spread of its own seconds; the
  // record's repetitions (or a burn figure's seconds) time every figure derived from its time
  // (TFLOP/s, efficiency, bandwidths, the times themselves).
  if (metric.find(".telemetry.") != std::string::npos)
    return seconds_noise(metrics, metric);
  // Round trips' spread is a latency's noise alone: a loaded-latency probe's load bandwidth once
  // carried its probe's +-26454 % and could never read worse.
  if (metric.find("latency") == std::string::npos)
    return repetition_noise(metrics);
  if (const auto repeated = repetition_noise(metrics))
    return repeated;
  // metrics.latency_idle.p50_s has the idle round trips' spread, not the loaded ones'.
  const auto dot = metric.rfind('.');
  const std::string prefix = "metrics.";
  if (metric.starts_with(prefix) && dot != std::string::npos && dot > prefix.size())
    if (const auto own =
            round_trip_noise(metrics, metric.substr(prefix.size(), dot - prefix.size())))
      return own;
  return round_trip_noise(metrics, "latency");
}

std::optional<Side> side_of(const Slot &slot) {
  if (slot.values.empty())
    return std::nullopt;
  Side s;
  s.value = railgauge::median(slot.values);
  s.records = static_cast<int>(slot.values.size());
  if (!slot.noises.empty())
    s.noise = railgauge::median(slot.noises);
  // Records that are each one sample (an nccl-tests log per node) and too few for percentiles:
  // their min to max is no spread. Two healthy nodes that printed 476.25 and 476.37 GB/s made a
  // band of +-0.0 %, and a 0.02 % difference read "better"; the side stays a single sample, judged
  // by the single-sample tolerance. A fleet of them (kLeastForPercentiles on) has a spread.
  const bool few_single_samples = slot.noises.empty() && slot.values.size() < kLeastForPercentiles;
  if (slot.values.size() >= 2 && s.value != 0 && !few_single_samples)
    s.noise = std::max(s.noise.value_or(0), spread_over_records(slot.values) / std::fabs(s.value));
  // From kLeastForPercentiles records on, the value is a fleet's median and what is compared is
  // that median: its noise is the spread's over the root of the count (a 90 % band of the median
  // of n normal values, 1.645 x 1.2533 sigma / sqrt(n), sigma the p10..p90 half-width / 1.2816).
  // The spread itself made the median's noise grow with the fleet's own variety: a 3 % drop of
  // all 250 nodes, 19 times the median's uncertainty, read "within noise" at +-3.7 %.
  constexpr double kMedianBandPerSpread = 1.645 * 1.2533 / 1.2816;
  if (slot.values.size() >= kLeastForPercentiles && s.noise)
    *s.noise *= kMedianBandPerSpread / std::sqrt(static_cast<double>(slot.values.size()));
  if (s.records >= kLeastRecordsForTail) {
    auto sorted = slot.values;
    std::sort(sorted.begin(), sorted.end());
    s.p10 = railgauge::percentile_of_sorted(sorted, 0.1);
    s.p90 = railgauge::percentile_of_sorted(sorted, 0.9);
  }
  return s;
}

Curves curves_of(const Sides &sides, const ParamsOf &params_of) {
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
        per_input[i].emplace_back(params[metric::kSizeBytes].get<double>(), *per_point[i]);
  }
  for (auto &[_, per_input] : curves)
    for (auto &sizes : per_input)
      std::sort(sizes.begin(), sizes.end(),
                [](const auto &a, const auto &b) { return a.first < b.first; });
  return curves;
}

std::optional<Side> interpolate(const std::vector<std::pair<double, Side>> &sizes, double size) {
  const auto above = std::upper_bound(sizes.begin(), sizes.end(), size,
                                      [](double s, const auto &p) { return s < p.first; });
  if (above == sizes.begin() || above == sizes.end())
    return std::nullopt;
  const auto &[lo_size, lo] = *(above - 1);
  const auto &[hi_size, hi] = *above;
  // Between two sizes at most two doublings apart (nccl-tests -f 4, or two -f 2 sweeps from
  // other -b): a line over 32 MiB .. 16 GiB crossed the curve's knee and judged ten sizes one
  // side never measured "worse" beside its identical figures at the sizes it did.
  // nccl-tests rounds a size down to whole elements per rank, so a -f 4 sweep on 80 ranks steps
  // 4.00004x (33553920 -> 134216960): the slack of merge_near_sizes lets those through.
  constexpr double kWidestGapRead = 4 * 1.001;
  if (!(lo_size < size && size < hi_size) || lo_size <= 0 || hi_size / lo_size > kWidestGapRead)
    return std::nullopt;
  const double t = std::log(size / lo_size) / std::log(hi_size / lo_size);
  Side s;
  s.value = lo.value + t * (hi.value - lo.value);
  s.records = std::min(lo.records, hi.records);
  if (lo.noise && hi.noise)
    s.noise = std::max(*lo.noise, *hi.noise);
  return s;
}

} // namespace railgauge::compare
