#include "analysis/check/curve_figure.h"

#include <fmt/format.h>

#include "analysis/check/noise_text.h"
#include "analysis/check/rule_values.h"

namespace railgauge::check {
namespace {

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

CurveReading curve_point_of(const CurveSpec &spec, const nlohmann::json &params,
                            const nlohmann::json &value) {
  CurveReading p;
  const auto over = params.find(spec.over);
  if (over == params.end() || !number_into(*over, p.x)) {
    p.kind = CurveReading::Kind::unreadable;
    p.unreadable = fmt::format("the record has no numeric parameter {}", spec.over);
    return p;
  }
  if (p.x <= 0)
    return p; // a size-0 row: nothing moved, no bandwidth to judge
  if (!number_into(value, p.y)) {
    p.kind = CurveReading::Kind::unreadable;
    p.unreadable = fmt::format("value {} is not a number", value.dump());
    return p;
  }
  p.kind = CurveReading::Kind::point;
  return p;
}

CurveFigure curve_figure(const CurveSpec &spec, std::span<const double> xs,
                         std::span<const double> ys) {
  const std::size_t n = ys.size();
  CurveFigure out;
  const bool shape = spec.take == CurveTake::largest_over_peak ||
                     spec.take == CurveTake::worst_drop ||
                     spec.take == CurveTake::smallest_over_peak;
  if (shape && static_cast<int>(n) < spec.min_points) {
    out.too_short = true;
    out.at = n - 1;
    out.how = fmt::format("a curve of {} point{} is shorter than min_points {}", n,
                          n == 1 ? "" : "s", spec.min_points);
    return out;
  }
  const auto x_text = [&](double x) {
    return spec.over == "size_bytes" ? bytes_text(x) : four_digit_text(x);
  };
  std::size_t at = n - 1, from = 0, best = 0;
  std::optional<std::size_t> divided_by;
  double value = ys.back();
  std::string how;
  for (std::size_t i = 1; i < n; ++i)
    if (ys[i] > ys[best])
      best = i;
  switch (spec.take) {
  case CurveTake::largest:
    how = fmt::format("at the largest {} measured, {}", spec.over, x_text(xs[at]));
    break;
  case CurveTake::peak:
    at = best;
    value = ys[best];
    how = fmt::format("best over {} points, at {}", n, x_text(xs[at]));
    break;
  case CurveTake::largest_over_peak:
    value = ys[best] > 0 ? ys.back() / ys[best] : 0;
    divided_by = best;
    how = fmt::format("{} at {} against the peak {} at {}", four_digit_text(ys.back()),
                      x_text(xs.back()), four_digit_text(ys[best]), x_text(xs[best]));
    break;
  case CurveTake::smallest_over_peak:
    at = 0;
    value = ys[best] > 0 ? ys.front() / ys[best] : 0;
    divided_by = best;
    how = fmt::format("{} at {} against the peak {} at {}", four_digit_text(ys.front()),
                      x_text(xs.front()), four_digit_text(ys[best]), x_text(xs[best]));
    break;
  case CurveTake::worst_drop: {
    value = 1;
    std::size_t peak = 0;
    for (std::size_t i = 1; i < n; ++i) {
      if (ys[peak] > 0 && ys[i] / ys[peak] < value) {
        value = ys[i] / ys[peak];
        at = i;
        from = peak;
      }
      if (ys[i] > ys[peak])
        peak = i;
    }
    if (value < 1)
      divided_by = from;
    how = value < 1 ? fmt::format("falls from {} at {} to {} at {}", four_digit_text(ys[from]),
                                  x_text(xs[from]), four_digit_text(ys[at]), x_text(xs[at]))
                    : "never falls";
    break;
  }
  }
  out.at = at;
  out.divided_by = divided_by;
  out.value = value;
  out.how = std::move(how);
  return out;
}

} // namespace railgauge::check
