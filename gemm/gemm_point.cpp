#include "gemm/gemm_point.h"

#include <algorithm>
#include <set>

#include <fmt/format.h>

#include "gemm/model_axes.h"
#include "gemm/verify_bound.h"
#include "harness/error.h"
#include "harness/waiver.h"
#include "records/gemm_record.h"

namespace railgauge::gemm {
namespace {

std::vector<AxisValue> int_values(const std::vector<std::int64_t> &v) {
  return {v.begin(), v.end()};
}

std::vector<AxisValue> text_values(const std::vector<std::string> &v) {
  return {v.begin(), v.end()};
}

Axis dtype_axis(const std::vector<Dtype> &dtypes, const std::vector<Dtype> &defaults) {
  return {record::kDtype, AxisType::text,
          "element type: " + fmt::format("{}", fmt::join(dtype_names(dtypes), ", ")),
          text_values(dtype_names(defaults)), dtype_names(dtypes)};
}

Axis peak_axis() {
  return {record::kPeakTflops,
          AxisType::real,
          "dense peak of this dtype in TFLOP/s (1e12 FLOP/s) for `efficiency`; 0 = the backend's "
          "own (GPU: results/peaks/gpu_peaks.yaml by name; CPU: none)",
          {0.0},
          {}};
}

std::uint64_t splitmix64(std::uint64_t x) {
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

// Each dimension is an `int` in the BLAS interfaces (cblas and cuBLASLt's layouts).
void require_blas_dimensions(const GemmShape &s, std::string_view fix) {
  for (auto [name, v] : {std::pair{record::kM, s.m},
                         {record::kN, s.n},
                         {record::kK, s.k},
                         {record::kBatch, s.batch}})
    if (v <= 0 || v > std::numeric_limits<int>::max())
      throw InputError(fmt::format("{} = {} is not a positive 32-bit GEMM dimension", name, v),
                       name, std::string(fix));
}

} // namespace

double GemmPlan::flops() const {
  double f = 0;
  for (const auto &g : gemms)
    f += gemm_flops(g);
  return f;
}

double GemmPlan::bytes(const DtypeBytes &element) const {
  double b = 0;
  for (const auto &g : gemms)
    b += gemm_bytes(g, element);
  return b;
}

std::vector<Axis> tp_sweep_axes(const TpAxesDefaults &d) {
  std::vector<Axis> axes = {
      dtype_axis(d.dtypes, d.default_dtypes),
      {record::kModel,
       AxisType::text,
       "transformer whose block GEMMs are measured (docs/gemm.md); `custom` takes its "
       "dimensions from hidden, heads, seq (and kv_heads, ffn)",
       {d.model},
       model_names()},
      {record::kTp,
       AxisType::integer,
       "tensor-parallel degree t: the GEMMs one of t GPUs runs; a t that does not divide the "
       "heads, kv heads or ffn is waived",
       int_values(d.tp),
       {}},
      {record::kLayer, AxisType::text, "which GEMM of the block (rows of the TP table)",
       text_values(layer_names()), layer_names()},
      {record::kPass, AxisType::text,
       "fwd, dgrad (data gradient) or wgrad (weight gradient; the attention BMMs have none and "
       "are waived)",
       text_values(pass_names()), pass_names()},
  };
  for (Axis &a : model_dimension_axes())
    axes.push_back(std::move(a));
  axes.push_back(peak_axis());
  return axes;
}

Dtype point_dtype(const Point &point) { return parse_dtype(point.text(record::kDtype), "dtype"); }

nlohmann::json model_params(const ModelShape &model) {
  return {{record::kSeq, model.seq},
          {record::kMicroBatch, model.micro_batch},
          {record::kHidden, model.hidden},
          {record::kHeads, model.heads},
          {record::kKvHeads, model.kv_heads},
          {record::kFfn, model.ffn},
          {record::kSwiglu, model.swiglu ? 1 : 0}};
}

GemmPlan plan_tp_point(const Point &point) {
  const ModelShape model = point_model(point);
  const auto tp = point.integer(record::kTp);
  const auto layer = parse_layer(point.text(record::kLayer));
  const auto pass = parse_pass(point.text(record::kPass));
  if (!layer || !pass)
    throw InputError(fmt::format("unknown gemm '{}' or pass '{}'", point.text(record::kLayer),
                                 point.text(record::kPass)),
                     "gemm/pass", "see `railgauge list gemm`");
  if (is_attention_bmm(*layer) && *pass == Pass::wgrad)
    throw InputError(
        not_applicable(fmt::format("{} is an attention BMM: it has no weights, so no wgrad",
                                   to_string(*layer))),
        "pass", "its backward pass is `dgrad` (two GEMMs)");
  if (tp < 1 || tp > (1 << 20))
    throw InputError(fmt::format("tp = {} is not a TP degree", tp), "tp", "give 1, 2, 4, ...");
  const auto gemms = transformer_gemms(model, static_cast<int>(tp), *layer, *pass);

  GemmPlan plan;
  plan.op = gemms.front().op();
  nlohmann::json shapes = nlohmann::json::array();
  for (const auto &g : gemms) {
    require_blas_dimensions(g.shape, "give a smaller seq, micro_batch, hidden or ffn");
    plan.gemms.push_back(g.shape);
    plan.operands.push_back(g.operand);
    plan.training_layouts.push_back(g.layout);
    shapes.push_back({{record::kGemmOperand, g.operand},
                      {record::kM, g.shape.m},
                      {record::kN, g.shape.n},
                      {record::kK, g.shape.k},
                      {record::kBatch, g.shape.batch}});
  }
  const auto &first = gemms.front().shape;
  plan.derived = {{record::kOp, plan.op},        {record::kM, first.m},
                  {record::kN, first.n},         {record::kK, first.k},
                  {record::kBatch, first.batch}, {record::kGemmCount, gemms.size()}};
  plan.derived.update(model_params(model));
  if (gemms.size() > 1)
    plan.gemm_list = shapes;
  return plan;
}

std::vector<Axis> size_sweep_axes(const std::vector<Dtype> &dtypes,
                                  const std::vector<Dtype> &default_dtypes,
                                  const std::vector<std::int64_t> &default_m) {
  return {
      dtype_axis(dtypes, default_dtypes),
      {record::kM,
       AxisType::integer,
       "rows of A and C (C[M×N] = A[M×K]·B[K×N], row-major)",
       int_values(default_m),
       {}},
      {record::kN,
       AxisType::integer,
       "columns of B and C; 0 = the same as m (square)",
       {std::int64_t{0}},
       {}},
      {record::kK,
       AxisType::integer,
       "the reduced dimension; 0 = the same as m (square)",
       {std::int64_t{0}},
       {}},
      {record::kBatch,
       AxisType::integer,
       "independent GEMMs of this shape per call (strided batched)",
       {std::int64_t{1}},
       {}},
      peak_axis(),
  };
}

GemmPlan plan_size_point(const Point &point) {
  GemmShape s;
  s.m = point.integer(record::kM);
  s.n = point.integer(record::kN) == 0 ? s.m : point.integer(record::kN);
  s.k = point.integer(record::kK) == 0 ? s.m : point.integer(record::kK);
  s.batch = point.integer(record::kBatch);
  require_blas_dimensions(s, "give a size from 1 to 2^31-1");
  GemmPlan plan;
  plan.op = record::kSizeOp;
  plan.gemms = {s};
  plan.operands = {""};
  plan.derived = {{record::kOp, plan.op},
                  {record::kM, s.m},
                  {record::kN, s.n},
                  {record::kK, s.k},
                  {record::kBatch, s.batch}};
  return plan;
}

record::GemmRates gemm_rates(const Measurement &m, const GemmPlan &plan, Dtype dtype,
                             double peak_tflops) {
  return record::GemmRates::of(plan.flops(), plan.bytes(dtype_bytes(dtype)), m.time_s, peak_tflops);
}

nlohmann::json gemm_metrics(const Measurement &m, const GemmPlan &plan, Dtype dtype,
                            double peak_tflops) {
  nlohmann::json j = m.to_json();
  gemm_rates(m, plan, dtype, peak_tflops).write(j);
  return j;
}

nlohmann::json verify_bound_json(Dtype dtype) {
  const VerifyBound b = verify_bound(dtype);
  nlohmann::json j = {{record::kErrorBoundOfResult, b.of_result},
                      {record::kErrorBoundOfAbsSum, b.of_abs_sum}};
  if (b.of_abs_sum_per_sqrt_k > 0)
    j[record::kErrorBoundOfAbsSumPerSqrtK] = b.of_abs_sum_per_sqrt_k;
  return j;
}

std::string verify_bound_text(Dtype dtype) {
  const VerifyBound b = verify_bound(dtype);
  auto text = fmt::format("{:g}·|ref| + {:g}·Σ|a·b|", b.of_result, b.of_abs_sum);
  if (b.of_abs_sum_per_sqrt_k > 0)
    text += fmt::format(" + {:g}·Σ|a·b|/√K", b.of_abs_sum_per_sqrt_k);
  return text;
}

std::vector<std::int64_t> sampled_elements(std::int64_t total, std::int64_t count,
                                           std::uint64_t seed) {
  if (total <= count) {
    std::vector<std::int64_t> all(static_cast<std::size_t>(total));
    for (std::int64_t i = 0; i < total; ++i)
      all[static_cast<std::size_t>(i)] = i;
    return all;
  }
  std::set<std::int64_t> picked = {0, total - 1};
  for (std::uint64_t i = 0; static_cast<std::int64_t>(picked.size()) < count; ++i)
    picked.insert(static_cast<std::int64_t>(splitmix64(seed ^ (i * 0x632be59bd9b4e019ULL)) %
                                            static_cast<std::uint64_t>(total)));
  return {picked.begin(), picked.end()};
}

double operand_value(std::uint64_t seed, std::uint64_t index) {
  const std::uint64_t r = splitmix64(seed * 0x9e3779b97f4a7c15ULL + index);
  const double magnitude = 0.5 + 0.5 * static_cast<double>(r >> 11) * 0x1.0p-53;
  return (r & 1) ? -magnitude : magnitude;
}

} // namespace railgauge::gemm
