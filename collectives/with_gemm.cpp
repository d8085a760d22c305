#include "collectives/with_gemm.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include <fmt/format.h>

#include "collectives/collective_point.h"
#include "harness/balance_repeats.h"
#include "records/bus_bandwidth.h"
#include "records/collective_record.h"

namespace railgauge::collectives {

namespace {

std::vector<Axis> all_reduce_with_gemm_axes(bool with_groups, std::vector<AxisValue> sizes_bytes,
                                            std::string gemm_help, std::int64_t gemm_mnk) {
  std::vector<Axis> axes;
  for (auto &a : collective_axes(Kind::all_reduce, false)) {
    if (a.name == record::kInPlace)
      continue;
    if (!with_groups && (a.name == record::kGroups || a.name == record::kGroupType))
      continue;
    if (a.name == record::kSizeBytes)
      a.defaults = sizes_bytes;
    axes.push_back(std::move(a));
  }
  axes.push_back({record::kGemmMnk, AxisType::integer, std::move(gemm_help), {gemm_mnk}, {}});
  return axes;
}

} // namespace

std::vector<Axis> mpi_all_reduce_with_gemm_axes() {
  return all_reduce_with_gemm_axes(
      false, {std::int64_t{1} << 20, std::int64_t{16} << 20},
      "M = N = K of the fp32 OpenBLAS GEMM that runs beside the all_reduce", 512);
}

std::vector<Axis> nccl_all_reduce_with_gemm_axes() {
  // Defaults that keep a `railgauge run` quick: a 4096^3 bf16 GEMM is about 0.14 TFLOP, a few
  // hundred microseconds on an H100, as long as a 16 MiB all_reduce over NVLink.
  return all_reduce_with_gemm_axes(
      true, {std::int64_t{1} << 20, std::int64_t{16} << 20},
      "M = N = K of the bf16 cuBLASLt GEMM (fp32 output) that runs beside the all_reduce on "
      "each GPU",
      4096);
}

OverlapWindow balance_window(double all_reduce_alone_s, double gemm_alone_s, int max_per_window) {
  const RepeatsPerCall r = balance_repeats(all_reduce_alone_s, gemm_alone_s, max_per_window);
  return {r.first, r.second};
}

OverlapWindow window_padding(const OverlapWindow &w, double all_reduce_s, double gemm_s,
                             int max_calls) {
  const auto positive = [](double s) { return std::isfinite(s) && s > 0; };
  if (!positive(all_reduce_s) || !positive(gemm_s) || max_calls < 1)
    throw std::invalid_argument(fmt::format(
        "window_padding: times must be positive (all_reduce {} s, GEMM {} s), at most {} calls",
        all_reduce_s, gemm_s, max_calls));
  if (w.all_reduces < 1 || w.gemms < 1)
    return {0, 0};
  const double all_reduce_span_s = w.all_reduces * all_reduce_s, gemm_span_s = w.gemms * gemm_s;
  // Calls of `per_call_s` to cover `behind_s` of the other's timed span, with the margin.
  const auto cover = [&](double behind_s, double per_call_s) {
    // Less than a billionth of a call behind is rounding, not a call to cover.
    const double calls = std::ceil(1.5 * std::max(behind_s, 0.0) / per_call_s - 1e-9) + 1.0;
    return static_cast<int>(std::min(calls, static_cast<double>(max_calls)));
  };
  return {cover(gemm_span_s - all_reduce_span_s, all_reduce_s),
          cover(all_reduce_span_s - gemm_span_s, gemm_s)};
}

WindowTimes measure_padded(const OverlapWindow &balanced, double all_reduce_alone_s,
                           double gemm_alone_s, int max_calls, OverlapWindow &padding,
                           const std::function<WindowTimes(const OverlapWindow &)> &measure) {
  padding = window_padding(balanced, all_reduce_alone_s, gemm_alone_s, max_calls);
  WindowTimes both = measure(balanced);
  const OverlapWindow needed =
      window_padding(balanced, both.all_reduce.time_s.median, both.gemm.time_s.median, max_calls);
  if (needed.all_reduces > padding.all_reduces || needed.gemms > padding.gemms) {
    padding = {std::max(padding.all_reduces, needed.all_reduces),
               std::max(padding.gemms, needed.gemms)};
    both = measure(balanced);
  }
  return both;
}

OverlapRun measure_overlap(int max_per_window, OverlapWindow &padding,
                           const std::function<WindowTimes(const OverlapWindow &)> &measure) {
  OverlapRun o;
  o.all_reduce_alone_s = measure({1, 0}).all_reduce.time_s.median;
  o.gemm_alone_s = measure({0, 1}).gemm.time_s.median;
  // Every rank has the same (gathered) times, so every rank runs the same window.
  o.balanced = balance_window(o.all_reduce_alone_s, o.gemm_alone_s, max_per_window);
  o.both = measure_padded(o.balanced, o.all_reduce_alone_s, o.gemm_alone_s, max_per_window, padding,
                          measure);
  o.padding = padding;
  return o;
}

LockstepResult summarize_gathered(const std::vector<double> &all, int iterations,
                                  std::span<const int> rank_names, int own_rank) {
  const auto row = static_cast<std::size_t>(iterations);
  if (iterations < 1 || all.empty() || all.size() % row != 0)
    throw std::invalid_argument(fmt::format(
        "summarize_gathered: {} values are not whole rows of {} iterations", all.size(), row));
  std::vector<std::vector<double>> by_rank;
  for (auto it = all.begin(); it != all.end(); it += static_cast<std::ptrdiff_t>(row))
    by_rank.emplace_back(it, it + static_cast<std::ptrdiff_t>(row));
  return summarize_lockstep(by_rank, rank_names, own_rank);
}

nlohmann::json overlap_metrics(const OverlapTimes &t, std::uint64_t size_bytes, int group_ranks) {
  const auto ratio = [](double num, double den) {
    return den > 0 && num > 0 ? nlohmann::json(num / den) : nlohmann::json(nullptr);
  };
  const auto busbw = [&](double time_s) {
    return time_s > 0 ? nlohmann::json(bandwidth(Kind::all_reduce, size_bytes, group_ranks, time_s)
                                           .busbw_gbytes_per_s)
                      : nlohmann::json(nullptr);
  };
  return {{record::kAllreduceAloneS, t.all_reduce_alone_s},
          {record::kAllreduceConcurrentS, t.all_reduce_concurrent_s},
          {record::kGemmAloneS, t.gemm_alone_s},
          {record::kGemmConcurrentS, t.gemm_concurrent_s},
          {record::kGemmSlowdown, ratio(t.gemm_concurrent_s, t.gemm_alone_s)},
          {record::kCollectiveSlowdown, ratio(t.all_reduce_concurrent_s, t.all_reduce_alone_s)},
          {record::kBusbwAloneGbytesPerS, busbw(t.all_reduce_alone_s)},
          {record::kBusbwConcurrentGbytesPerS, busbw(t.all_reduce_concurrent_s)}};
}

nlohmann::json window_metrics(const OverlapWindow &balanced, const OverlapWindow &padding) {
  return {{record::kGemmsPerWindow, balanced.gemms},
          {record::kAllreducesPerWindow, balanced.all_reduces},
          {record::kPaddingPerWindow,
           {{record::kPaddingAllReduces, padding.all_reduces},
            {record::kPaddingGemms, padding.gemms}}}};
}

std::optional<std::string> gemm_problem(std::uint64_t wrong_all, std::uint64_t wrong_mine) {
  if (wrong_all == 0)
    return std::nullopt;
  return fmt::format(
      "GEMM: {} sampled entries over all ranks differ from the exact product (this rank: {})",
      wrong_all, wrong_mine);
}

} // namespace railgauge::collectives
