// gemm.burn's axes, waivers and verdict: compiled in every build (run_burn() is in burn_run.cpp
// or its stub).
#include "gemm/cuda/burn.h"

#include <algorithm>

#include <fmt/format.h>

#include "gemm/cuda/cublaslt_plan.h"
#include "harness/cuda/device.h"
#include "harness/cuda/every_gpu_check.h"
#include "harness/device_fields.h"
#include "harness/error.h"
#include "harness/every_gpu.h"
#include "harness/every_gpu_status.h"
#include "harness/rate_series.h"
#include "records/gemm_burn_figures.h"
#include "records/gemm_record.h"
#include "records/gpu_part.h"

namespace railgauge::gemm {
namespace {

// fp64 and tf32 are the burn-in's FP64 and TF32 stress (DCGM's diagnostic and gpu-burn's -d
// DGEMM and -tc tensor-core modes), each with the same bitwise and reference checks.
constexpr Dtype kBurnDtypes[] = {Dtype::bf16, Dtype::fp16, Dtype::fp8_e4m3,
                                 Dtype::tf32, Dtype::fp32, Dtype::fp64};

std::string gpu_label(const BurnGpuResult &g) {
  return every_gpu_label(g.index, g.name, g.uuid, g.pci);
}

} // namespace

nlohmann::json BurnGpuResult::to_json() const {
  nlohmann::json j = nlohmann::json::object();
  record::GemmBurnGpuFigures{.index = index,
                             .iterations = iterations,
                             .bad_iterations = bad_iterations,
                             .first_bad_iteration = first_bad_iteration,
                             .mismatched_elements = mismatched_elements,
                             .nan_elements = nan_elements,
                             .inf_elements = inf_elements,
                             .reference_checked = reference_checked,
                             .reference_wrong = reference_wrong,
                             .tflops = tflops,
                             .tflops_min = tflops_min,
                             .algo = algo}
      .write(j);
  records::gpu_part_of(*this, index,
                       error ? Status::error : (corrupt() ? Status::failed : Status::ok))
      .write(j);
  return j;
}

Outcome burn_outcome(const std::vector<BurnGpuResult> &gpus, double flops_per_gemm) {
  Outcome out;
  nlohmann::json list = nlohmann::json::array();
  std::vector<std::string> corrupt, broke;
  std::vector<std::pair<int, double>> speeds; // (GPU index, TFLOP/s)
  for (const auto &g : gpus) {
    list.push_back(g.to_json());
    if (g.corrupt()) {
      std::string what;
      if (g.reference_wrong > 0)
        what = fmt::format("its first result differs from the fp64 reference in {} of {} sampled "
                           "elements; ",
                           g.reference_wrong, g.reference_checked);
      if (g.bad_iterations > 0 || g.mismatched_elements > 0 || g.nan_elements > 0 ||
          g.inf_elements > 0)
        what += fmt::format("{} elements differ from the first result in {} of {} repetitions "
                            "(first at repetition {}), {} NaN, {} Inf",
                            g.mismatched_elements, g.bad_iterations, g.iterations,
                            g.first_bad_iteration, g.nan_elements, g.inf_elements);
      corrupt.push_back(fmt::format("{}: {}", gpu_label(g), what));
    }
    if (g.error)
      broke.push_back(fmt::format("{}: {}", gpu_label(g), *g.error));
    else if (g.tflops > 0)
      speeds.emplace_back(g.index, g.tflops);
  }
  out.metrics[record::kGpus] = list;
  out.metrics[record::kFlopsPerCall] = flops_per_gemm;
  if (const auto across = records::AcrossGpuFigures::of(speeds))
    across->write(out.metrics, record::kBurnTflopsAcrossGpus);
  if (gpus.size() == 1)
    out.device = {{device::kGpu, gpus.front().uuid}, {device::kPci, gpus.front().pci}};
  out.metrics[record::kVerified] = corrupt.empty() && broke.empty() && !gpus.empty();
  set_every_gpu_status(out, gpus.size(), corrupt, broke, "silent data corruption on", "the burn");
  return out;
}

std::vector<Axis> BurnBenchmark::axes() const {
  const std::vector<Dtype> dtypes(std::begin(kBurnDtypes), std::end(kBurnDtypes));
  return {
      {record::kDtype,
       AxisType::text,
       "element type: " + fmt::format("{}", fmt::join(dtype_names(dtypes), ", ")),
       {std::string("bf16")},
       dtype_names(dtypes)},
      {record::kM, AxisType::integer, "rows of A and C", {std::int64_t{8192}}, {}},
      {record::kN,
       AxisType::integer,
       "columns of B and C; 0 = the same as m",
       {std::int64_t{0}},
       {}},
      {record::kK,
       AxisType::integer,
       "the reduced dimension; 0 = the same as m",
       {std::int64_t{0}},
       {}},
      {record::kLayout,
       AxisType::text,
       "nt (B stored as Bᵀ [N×K]; fp8 needs it) or nn",
       {std::string("nt")},
       {"nt", "nn"}},
      every_gpu_duration_axis(60, "repeated GEMMs"),
      every_gpu_device_axis(),
  };
}

BurnOptions burn_options(const Point &point, int gpus_visible) {
  BurnOptions o;
  o.dtype = point_dtype(point);
  o.layout = std::string(to_string(parse_layout(point.text(record::kLayout), "layout")));
  o.shape.m = point.integer(record::kM);
  o.shape.n = point.integer(record::kN) == 0 ? o.shape.m : point.integer(record::kN);
  o.shape.k = point.integer(record::kK) == 0 ? o.shape.m : point.integer(record::kK);
  for (auto [name, v] :
       {std::pair{record::kM, o.shape.m}, {record::kN, o.shape.n}, {record::kK, o.shape.k}})
    if (v <= 0 || v > std::numeric_limits<int>::max())
      throw InputError(fmt::format("{} = {} is not a positive 32-bit GEMM dimension", name, v),
                       name, "give a size from 1 to 2^31-1");
  const EveryGpuAxes every = every_gpu_axes(point, gpus_visible);
  o.duration_s = every.duration_s;
  o.gpus = every.gpus;
  return o;
}

std::optional<std::string> BurnBenchmark::supported(const RunContext &, const Point &point) const {
  return gpu::every_gpu_point_problem(
      [&](int count) { return burn_options(point, count); },
      [](const BurnOptions &o, int count) -> std::optional<std::string> {
        if (auto why = layout_problem(o.dtype, parse_layout(o.layout, "layout")))
          return why;
        return gpu::every_gpu_problem(
            o.gpus, count,
            [&](int d, const gpu::CudaDeviceInfo &info) -> std::optional<std::string> {
              if (auto why = dtype_capability_problem(o.dtype, info.compute_capability))
                return fmt::format("GPU {} ({}): {}", d, info.name, *why);
              // Operands, the golden output and at least one ring buffer.
              const double need =
                  static_cast<double>(operand_set_bytes(o.shape, o.dtype) + kLtWorkspaceBytes) +
                  static_cast<double>(o.shape.m * o.shape.n * dtype_bytes(o.dtype).c);
              if (need > 0.8 * static_cast<double>(info.free_memory_bytes))
                return fmt::format("the burn needs {:.3g} GB on GPU {} ({}), more than 80% of "
                                   "its {:.3g} GB free: use a smaller m, n, k",
                                   need / 1e9, d, info.name,
                                   static_cast<double>(info.free_memory_bytes) / 1e9);
              return std::nullopt;
            });
      });
}

Outcome BurnBenchmark::run(RunContext &ctx, const Point &point) {
  if (auto why = supported(ctx, point))
    return Outcome::waived(*why);
  const BurnOptions o = burn_options(point, gpu::cuda_device_count());
  Outcome out = burn_outcome(run_burn(o), gemm_flops(o.shape));
  out.derived_params = {{record::kN, o.shape.n},
                        {record::kK, o.shape.k},
                        {record::kGpusBurned, o.gpus.size()},
                        {record::kWorkspaceBytes, kLtWorkspaceBytes}};
  return out;
}

std::unique_ptr<BurnBenchmark> make_burn() { return std::make_unique<BurnBenchmark>(); }

} // namespace railgauge::gemm
