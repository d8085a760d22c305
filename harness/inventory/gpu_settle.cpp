// readings_settled(): the criterion of gpu_settle.h, compiled in every build.
#include "harness/inventory/gpu_settle.h"

#include <cmath>

#include "harness/stats.h"

namespace railgauge {
namespace {

// Mean of one field over readings [from, to), or empty when none has it. A mean, not a median:
// a power-capped clock alternates between steps (1,650 and 1,755 MHz), and the median of a few
// readings jumps between them.
template <typename Field>
std::optional<double> mean_of(const std::vector<SettleReading> &r, std::size_t from, std::size_t to,
                              Field field) {
  std::vector<double> v;
  for (std::size_t i = from; i < to; ++i)
    if (const auto &x = r[i].*field)
      v.push_back(*x);
  if (v.empty())
    return std::nullopt;
  return summarize(v).mean;
}

bool agree(const std::optional<double> &a, const std::optional<double> &b, double tolerance) {
  if (!a || !b)
    return true; // a field NVML does not answer cannot hold the point back
  return std::abs(*a - *b) <= tolerance * std::max(std::abs(*a), std::abs(*b));
}

} // namespace

bool readings_settled(const std::vector<SettleReading> &r) {
  if (r.empty() || r.back().t_s - r.front().t_s < kSettleWindow_s)
    return false;
  // The readings of the last window, split at its middle.
  const double end = r.back().t_s, middle = end - kSettleWindow_s / 2;
  std::size_t first = r.size();
  while (first > 0 && r[first - 1].t_s >= end - kSettleWindow_s)
    --first;
  std::size_t split = first;
  while (split < r.size() && r[split].t_s < middle)
    ++split;
  if (split - first < 3 || r.size() - split < 3)
    return false;
  return agree(mean_of(r, first, split, &SettleReading::sm_clock_mhz),
               mean_of(r, split, r.size(), &SettleReading::sm_clock_mhz), kSettleClockTolerance) &&
         agree(mean_of(r, first, split, &SettleReading::power_w),
               mean_of(r, split, r.size(), &SettleReading::power_w), kSettlePowerTolerance);
}

} // namespace railgauge
