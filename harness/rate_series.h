#pragma once
// The figures of a point that runs for a set time (a burn-in phase): each timed batch gives a
// rate (TFLOP/s, GB/s) at a time since the phase began. The phase's figure is the median of the
// batches after it settled (a GPU's clocks fall over the first seconds of load, as it heats and
// reaches its power cap: the figure is the sustained rate, not the boost), and the series holds
// one row per window, so a rack team sees each GPU's rate beside its clocks and power
// (harness/inventory/gpu_monitor.h's series, on the same time axis).
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

namespace railgauge {

// The share of a phase left out of its figure, from the start: the clocks settle within it.
inline constexpr double kSettleFraction = 0.2;

class RateSeries {
public:
  // One timed batch that ended `t_s` after the phase began, at `rate`.
  void add(double t_s, double rate);
  bool empty() const { return points_.empty(); }
  std::size_t size() const { return points_.size(); }

  // The batches that ended at or after settle_s (all of them when none did).
  std::vector<double> settled(double settle_s) const;
  // Median and minimum of settled(settle_s); empty without batches.
  std::optional<double> median(double settle_s) const;
  std::optional<double> min(double settle_s) const;
  // [{"t_s": window start, "<name>": median rate of the batches that ended in the window}] per
  // window of window_s (windows without a batch are left out).
  nlohmann::json windows(double window_s, const char *name) const;

private:
  struct Point {
    double t_s, rate;
  };
  std::vector<Point> points_;
};

} // namespace railgauge
