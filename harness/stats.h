#pragma once
// Order statistics of a set of samples. Percentiles interpolate linearly between closest ranks
// (numpy's default), so p50 of an even count is the mean of the two middle samples. The
// standard deviation is the sample (n-1) one, in floating point: sub-microsecond jitter stays
// visible (perftest's integer stdev prints it as 0).
#include <cstddef>
#include <optional>
#include <span>
#include <vector>

#include <nlohmann/json.hpp>

namespace railgauge {

struct Summary {
  std::size_t n = 0;
  double min = 0, max = 0, mean = 0, stdev = 0;
  double median = 0, p10 = 0, p90 = 0, p99 = 0;

  // stdev / mean; 0 when the mean is 0 or there is a single sample.
  double relative_stdev() const { return mean != 0 ? stdev / mean : 0.0; }
};

// p in [0, 1]; `sorted` must be sorted ascending and non-empty.
double percentile_of_sorted(std::span<const double> sorted, double p);

// Throws std::invalid_argument on an empty span or a non-finite sample.
Summary summarize(std::span<const double> samples);

// The median (mean of the two middle values for an even count); 0 for no samples.
double median(std::span<const double> samples);

// Median absolute deviation, scaled by 1.4826 so that it estimates sigma for normal data.
double scaled_mad(std::span<const double> samples);

nlohmann::json to_json(const Summary &s);

// A summary as to_json writes it (a record's time_s, best_time_s, ...); nullopt where `j` is null,
// or n or any figure is missing or not a number: a record written by another tool, or an older
// railgauge, reads as no summary rather than a partial one.
std::optional<Summary> summary_from_json(const nlohmann::json *j);

} // namespace railgauge
