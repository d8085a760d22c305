#include "analysis/calibrate/table_fit.h"

namespace railgauge::calibrate {

FitQuality quality_of(const StepFit &f, std::size_t n) { return {n, f.held_out, f.in_sample}; }

TableFit fit_table(std::string name, std::string unit, Sourced peak,
                   const std::vector<StepPoint> &points, const CalibrateOptions &o,
                   std::string source, double max_efficiency) {
  TableFit t;
  t.name = std::move(name);
  t.x_unit = std::move(unit);
  t.peak = std::move(peak);
  t.measured = true;
  t.source = std::move(source);
  t.max_efficiency = max_efficiency;
  const StepFit f = choose_step_table(points, o.max_steps, o.folds, o.seed, max_efficiency);
  t.table = f.table;
  t.steps = f.steps;
  t.quality = quality_of(f, points.size());
  t.row_intervals = step_row_intervals(t.table, points, max_efficiency, o.seed);
  return t;
}

TableFit assumed_table(std::string name, std::string unit, Sourced peak,
                       const std::pair<EfficiencyRows, std::string> &rows, double scale) {
  TableFit t;
  t.name = std::move(name);
  t.x_unit = std::move(unit);
  t.peak = std::move(peak);
  t.source = rows.second;
  for (const auto &[x, e] : rows.first)
    t.table.rows.emplace_back(x * scale, e);
  t.steps = static_cast<int>(t.table.rows.size());
  return t;
}

Sourced measured(double v, std::string what) { return {v, "measured: " + std::move(what), true}; }

} // namespace railgauge::calibrate
