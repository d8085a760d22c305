#include "analysis/calibrate/tp_sweep_check.h"

#include <algorithm>
#include <cmath>
#include <tuple>

#include "analysis/calibrate/coefficient_file.h"
#include "analysis/calibrate/si_prefixes.h"

namespace railgauge::calibrate {
namespace {

StepPoint point_of(const GemmShapeRow &r, double peak_tflops) {
  return {r.sample.flops, r.sample.flops / (peak_tflops * kTera), r.memory_s, r.sample.time_s};
}

// Mean and max of |predicted - measured| / measured over (predicted, measured) pairs.
HeldOutError error_of(const std::vector<std::pair<double, double>> &pairs, int folds) {
  HeldOutError e;
  e.folds = folds;
  for (const auto &[predicted, measured] : pairs) {
    const double rel = std::abs(predicted - measured) / measured;
    e.mean_rel += rel;
    e.max_rel = std::max(e.max_rel, rel);
  }
  e.points = pairs.size();
  if (e.points > 0)
    e.mean_rel /= static_cast<double>(e.points);
  return e;
}

TpSweepCheck check_one(const std::string &model, const std::string &dtype, const TableFit &fit,
                       const std::vector<GemmShapeRow> &rows) {
  TpSweepCheck check;
  check.model = model;
  check.dtype = dtype;
  const double peak = fit.peak.value;
  std::map<int, std::vector<const GemmShapeRow *>> by_tp;
  for (const auto &r : rows)
    if (r.sample.model == model && r.sample.tp > 0)
      by_tp[r.sample.tp].push_back(&r);

  std::vector<std::pair<double, double>> all_in, all_out;
  for (const auto &[tp, members] : by_tp) {
    // The table that never saw this model at this t, with the step count chosen for the whole.
    std::optional<StepTable> without_t;
    std::vector<StepPoint> others;
    for (const auto &r : rows)
      if (!(r.sample.model == model && r.sample.tp == tp))
        others.push_back(point_of(r, peak));
    if (!others.empty())
      without_t = fit_step_table(others, std::max(1, fit.steps), fit.max_efficiency);

    TpDegreeSummary d;
    d.tp = tp;
    d.gemms = members.size();
    std::vector<std::pair<double, double>> in, out;
    double block_out_s = 0;
    for (const GemmShapeRow *r : members) {
      const StepPoint p = point_of(*r, peak);
      TpGemmPrediction g{r->sample, fit.table.predict_s(p), std::nullopt};
      in.emplace_back(g.predicted_s, p.measured_s);
      // A record's time is one call, all its GEMMs (a BMM dgrad's two): once per block.
      d.gemm_sum_measured_s += p.measured_s;
      d.gemm_sum_predicted_s += g.predicted_s;
      if (without_t) {
        g.leave_t_out_s = without_t->predict_s(p);
        out.emplace_back(*g.leave_t_out_s, p.measured_s);
        block_out_s += *g.leave_t_out_s;
      }
      check.gemms.push_back(std::move(g));
    }
    d.in_sample = error_of(in, 0);
    all_in.insert(all_in.end(), in.begin(), in.end());
    if (without_t) {
      d.leave_t_out = error_of(out, static_cast<int>(by_tp.size()));
      d.gemm_sum_leave_t_out_s = block_out_s;
      all_out.insert(all_out.end(), out.begin(), out.end());
    }
    check.degrees.push_back(d);
  }
  check.in_sample = error_of(all_in, 0);
  if (!all_out.empty())
    check.leave_t_out = error_of(all_out, static_cast<int>(by_tp.size()));
  return check;
}

nlohmann::json optional_json(const std::optional<HeldOutError> &e) {
  return e ? to_json(*e) : nlohmann::json(nullptr);
}

} // namespace

std::vector<TpSweepCheck> check_tp_sweeps(const Calibration &c) {
  std::vector<TpSweepCheck> checks;
  for (const auto &[dtype, rows] : c.gemm_shapes) {
    std::vector<std::string> models;
    for (const auto &r : rows)
      if (r.sample.tp > 0 && !r.sample.model.empty() &&
          std::find(models.begin(), models.end(), r.sample.model) == models.end())
        models.push_back(r.sample.model);
    for (const auto &model : models)
      checks.push_back(check_one(model, dtype, c.gemm_by_dtype.at(dtype), rows));
  }
  return checks;
}

nlohmann::json to_json(const TpSweepCheck &check) {
  nlohmann::json degrees = nlohmann::json::array();
  for (const auto &d : check.degrees) {
    const auto rel = [&](std::optional<double> predicted) {
      return predicted ? nlohmann::json(std::abs(*predicted - d.gemm_sum_measured_s) /
                                        d.gemm_sum_measured_s)
                       : nlohmann::json(nullptr);
    };
    degrees.push_back({{"tp", d.tp},
                       {"gemms", d.gemms},
                       {"in_sample", to_json(d.in_sample)},
                       {"leave_t_out", optional_json(d.leave_t_out)},
                       {"gemm_sum_measured_s", d.gemm_sum_measured_s},
                       {"gemm_sum_predicted_s", d.gemm_sum_predicted_s},
                       {"gemm_sum_in_sample_rel", rel(d.gemm_sum_predicted_s)},
                       {"gemm_sum_leave_t_out_s", d.gemm_sum_leave_t_out_s
                                                      ? nlohmann::json(*d.gemm_sum_leave_t_out_s)
                                                      : nlohmann::json(nullptr)},
                       {"gemm_sum_leave_t_out_rel", rel(d.gemm_sum_leave_t_out_s)}});
  }
  nlohmann::json gemms = nlohmann::json::array();
  for (const auto &g : check.gemms)
    gemms.push_back({{"tp", g.sample.tp},
                     {"op", g.sample.op},
                     {"m", g.sample.m},
                     {"n", g.sample.n},
                     {"k", g.sample.k},
                     {"batch", g.sample.batch},
                     {"count", g.sample.count},
                     {"measured_s", g.sample.time_s},
                     {"predicted_s", g.predicted_s},
                     {"leave_t_out_s", g.leave_t_out_s ? nlohmann::json(*g.leave_t_out_s)
                                                       : nlohmann::json(nullptr)}});
  return {{"model", check.model},
          {"dtype", check.dtype},
          {"in_sample", to_json(check.in_sample)},
          {"leave_t_out", optional_json(check.leave_t_out)},
          {"degrees", degrees},
          {"gemms", gemms}};
}

} // namespace railgauge::calibrate
