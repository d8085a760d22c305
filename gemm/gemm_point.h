#pragma once
// What every GEMM backend shares: the axes of its two benchmarks and how a point of either
// becomes the GEMMs that one call of the measured operation runs (a GemmPlan), plus the metrics
// every GEMM record carries.
//
// Each backend has two keys, because the runner sweeps the Cartesian product of a benchmark's
// axes and the two ways of choosing a shape have different axes:
//   gemm.<backend>       transformer shapes under TP: model, tp, gemm, pass (+ model overrides)
//   gemm.<backend>_size  a size sweep: m, n, k, batch (n = k = 0 means square, m = n = k)
// Putting both in one key would multiply every size by every (tp, gemm, pass), or need a
// default that switches with another axis's value, which the runner cannot express.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "gemm/dtype.h"
#include "gemm/model_presets.h"
#include "gemm/transformer_shapes.h"
#include "harness/axis.h"
#include "harness/measure.h"
#include "harness/record.h"
#include "records/gemm_cublaslt_fields.h"

namespace railgauge::gemm {

struct GemmPlan {
  std::string op; // "qkv.fwd", "scores.dgrad" or "size"
  // Run in this order by one call of the operation: one GEMM, or a BMM's two dgrad GEMMs.
  std::vector<GemmShape> gemms;
  std::vector<std::string> operands;                 // per GEMM: "dq", "dk", "dp", "dv" or ""
  std::vector<Layout> training_layouts;              // per GEMM (TP points); empty for sizes
  nlohmann::json derived = nlohmann::json::object(); // merged into the record's params (scalars)
  // Every GEMM of the call with its operand and shape, when there are several: a list, so it
  // goes into the record's metrics (params stay flat scalars that points are matched by).
  nlohmann::json gemm_list = nullptr;

  double flops() const;                          // sum of gemm_flops()
  double bytes(const DtypeBytes &element) const; // sum of gemm_bytes()
};

struct TpAxesDefaults {
  std::string model;
  std::vector<std::int64_t> tp;
  std::vector<Dtype> dtypes;         // the axis's choices
  std::vector<Dtype> default_dtypes; // its defaults
};

// dtype, model, tp, gemm, pass, seq, micro_batch, hidden, heads, kv_heads, ffn, swiglu,
// peak_tflops.
std::vector<Axis> tp_sweep_axes(const TpAxesDefaults &defaults);
// The point's model with its overrides applied, and the GEMMs of its (gemm, pass) at its tp.
// Throws InputError for a model/tp that cannot be split or a BMM's wgrad (it has no weights).
GemmPlan plan_tp_point(const Point &point);
// The model's dimensions as a TP record's params (seq, micro_batch, hidden, heads, kv_heads, ffn,
// swiglu): a TP point's and the block's (block/).
nlohmann::json model_params(const ModelShape &model);

// dtype, m, n, k, batch, peak_tflops.
std::vector<Axis> size_sweep_axes(const std::vector<Dtype> &dtypes,
                                  const std::vector<Dtype> &default_dtypes,
                                  const std::vector<std::int64_t> &default_m);
// Throws InputError for a dimension that is not positive.
GemmPlan plan_size_point(const Point &point);

// The axis's dtype, checked against `where`.
Dtype point_dtype(const Point &point);

// The rates of a measured plan (records/gemm_cublaslt_fields.h): flops_per_call,
// bytes_per_call, flops_per_byte,
//   tflops      (flops_per_call / median time / 1e12), tflops_max (.. / min time ..),
//   efficiency  (tflops / peak_tflops) and peak_tflops when a peak is known (> 0).
record::GemmRates gemm_rates(const Measurement &m, const GemmPlan &plan, Dtype dtype,
                             double peak_tflops);
// The record's metrics for a measured plan: the Measurement (time_s, batch, timer, ...) and
// its gemm_rates.
nlohmann::json gemm_metrics(const Measurement &m, const GemmPlan &plan, Dtype dtype,
                            double peak_tflops);

// The data check's bound of `dtype` (verify_bound.h) as a record holds it,
// {"of_result": .., "of_abs_sum": ..}, and as an error message says it ("0.008·|ref| +
// 0.0001·Σ|a·b|").
nlohmann::json verify_bound_json(Dtype dtype);
std::string verify_bound_text(Dtype dtype);

// Which output elements a data check recomputes: the first and the last always (so a test's
// corruption of either is seen), then `count` - 2 more drawn with `seed`.
std::vector<std::int64_t> sampled_elements(std::int64_t total, std::int64_t count,
                                           std::uint64_t seed);

// Seeded operand values, never zero: |x| in [0.5, 1) with a random sign, so the sums cancel
// like real data and a dropped term always shows.
double operand_value(std::uint64_t seed, std::uint64_t index);

} // namespace railgauge::gemm
