#include "analysis/calibrate/processing_mode.h"

#include <fmt/format.h>

namespace railgauge::calibrate {
namespace {

constexpr double kClearlyBetter = 0.9; // roofline's error at most this share of no_overlap's

} // namespace

std::optional<GemmTableError> gemm_table_error(const Calibration &c) {
  // The tables that could hold points out, if any: a burn-in's one TF32 point beside a sweep's
  // hundred bf16 points must not turn the sweep's held-out error into an in-sample one.
  for (const bool held_out : {true, false}) {
    double weighted = 0;
    std::size_t points = 0;
    for (const auto &[dtype, t] : c.gemm_by_dtype) {
      if (!t.measured || t.quality.points == 0 || t.quality.held_out.has_value() != held_out)
        continue;
      const HeldOutError &e = held_out ? *t.quality.held_out : t.quality.in_sample;
      weighted += e.mean_rel * static_cast<double>(t.quality.points);
      points += t.quality.points;
    }
    if (points > 0)
      return GemmTableError{weighted / static_cast<double>(points), held_out};
  }
  return std::nullopt;
}

Calibration calibrate_choosing_mode(const analysis::RunSet &runs, const Assumptions &assumptions,
                                    CalibrateOptions options) {
  options.mode = ProcessingMode::no_overlap;
  Calibration no_overlap = calibrate(runs, assumptions, options);
  const auto no_overlap_error = gemm_table_error(no_overlap);
  if (!no_overlap_error)
    return no_overlap;
  options.mode = ProcessingMode::roofline;
  Calibration roofline = calibrate(runs, assumptions, options);
  const auto roofline_error = gemm_table_error(roofline);
  // Calculon's own convention unless roofline is clearly better: noise in a few points must not
  // flip the mode from one run to the next.
  // In-sample errors cannot choose: a one-row table fits its one point exactly in roofline.
  const bool held_out = no_overlap_error->held_out && roofline_error && roofline_error->held_out;
  const bool keep_roofline =
      held_out && roofline_error->mean_rel < kClearlyBetter * no_overlap_error->mean_rel;
  Calibration &kept = keep_roofline ? roofline : no_overlap;
  kept.notes.push_back(fmt::format(
      "processing_mode {}: the GEMM tables' {} mean error is {:.2f}% in roofline mode and "
      "{:.2f}% in no_overlap mode{} (--processing-mode auto; give no_overlap or roofline to "
      "choose)",
      keep_roofline ? "roofline" : "no_overlap", held_out ? "held-out" : "in-sample",
      100 * (roofline_error ? roofline_error->mean_rel : 0), 100 * no_overlap_error->mean_rel,
      held_out ? "" : ", too few points to hold any out: Calculon's no_overlap is kept"));
  return std::move(kept);
}

} // namespace railgauge::calibrate
