// The parts of the cuBLASLt benchmarks that need no CUDA toolkit: axes, options, the peak
// choice and the waivers (compiled in every build; device.h has a stub without CUDA).
#include "gemm/cuda/cublaslt.h"

#include <fmt/format.h>

#include "gemm/gpu_peaks.h"
#include "harness/cuda/device.h"
#include "harness/cuda/every_gpu_check.h"
#include "harness/data_paths.h"
#include "harness/error.h"
#include "records/gemm_record.h"

namespace railgauge::gemm {
namespace {

constexpr int kMaxTopK = 64;

} // namespace

std::vector<Axis> cublaslt_axes(bool training_layouts) {
  std::vector<std::string> layouts = {"nt", "nn", "tn"};
  std::string help = "operand storage of C[M×N] = A[M×K]·B[K×N]: nt = B stored as Bᵀ [N×K] (a "
                     "linear layer's forward; the only fp8 layout on Hopper), nn = B stored "
                     "[K×N] (its dgrad), tn = A stored as Aᵀ [K×M] (its wgrad)";
  if (training_layouts) {
    layouts.insert(layouts.begin(), std::string(kTrainingLayouts));
    help += "; training = each GEMM as training runs it (fwd nt, dgrad nn, wgrad tn; the "
            "attention BMMs their own; fp8 all nt, as Transformer Engine)";
  }
  return {
      {record::kGpu,
       AxisType::integer,
       "CUDA device index, as CUDA_VISIBLE_DEVICES leaves them (default: every visible GPU)",
       {std::int64_t{0}},
       {}},
      {record::kLayout, AxisType::text, help, {layouts.front()}, layouts},
      {record::kTopK,
       AxisType::integer,
       "cuBLASLt heuristic candidates screened per GEMM; the fastest is measured beside the "
       "heuristic's first pick (1 = the first pick only)",
       {std::int64_t{8}},
       {}},
  };
}

CublasLtOptions cublaslt_options(const Point &point) {
  CublasLtOptions o;
  o.dtype = point_dtype(point);
  if (point.text(record::kLayout) != kTrainingLayouts)
    o.layout = parse_layout(point.text(record::kLayout), "layout");
  const std::int64_t gpu = point.integer(record::kGpu);
  if (gpu < 0 || gpu > 1024)
    throw InputError(fmt::format("gpu = {} is not a CUDA device index", gpu), "gpu",
                     "give 0, 1, ... (CUDA_VISIBLE_DEVICES order)");
  o.gpu = static_cast<int>(gpu);
  const std::int64_t top_k = point.integer(record::kTopK);
  if (top_k < 1 || top_k > kMaxTopK)
    throw InputError(fmt::format("top_k = {} is out of range", top_k), "top_k",
                     fmt::format("give 1 to {}", kMaxTopK));
  o.top_k = static_cast<int>(top_k);
  o.peak_tflops = point.real(record::kPeakTflops);
  return o;
}

std::vector<Layout> gemm_layouts(const CublasLtOptions &o, const GemmPlan &plan) {
  std::vector<Layout> out;
  for (std::size_t g = 0; g < plan.gemms.size(); ++g) {
    if (o.layout)
      out.push_back(*o.layout);
    else if (g < plan.training_layouts.size())
      out.push_back(layout_for_dtype(plan.training_layouts[g], o.dtype));
    else
      out.push_back(Layout::nt);
  }
  return out;
}

PeakChoice choose_gpu_peak(double axis_peak_tflops, const std::string &table_path,
                           const std::string &device_name, Dtype dtype) {
  PeakChoice c;
  if (axis_peak_tflops > 0) {
    c.tflops = axis_peak_tflops;
    c.source = "axis peak_tflops";
    return c;
  }
  const DataFileName shown = data_file_name(table_path);
  c.table_origin = shown.origin;
  // The table's path as the record names it: `where` is "<table_path>:<line>".
  const auto named = [&](std::string where) {
    if (where.starts_with(table_path))
      where.replace(0, table_path.size(), shown.name);
    return where;
  };
  GpuPeakTable table;
  try {
    table = load_gpu_peaks(table_path);
  } catch (const InputError &e) {
    c.source = fmt::format("none: {}: {}", named(e.where()), e.problem()); // one line: a param
    return c;
  }
  const GpuPeak *peak = find_gpu_peak(table, device_name);
  if (!peak) {
    c.source = fmt::format("none: {} has no entry matching '{}' (add one, or give "
                           "-a peak_tflops=X)",
                           shown.name, device_name);
    return c;
  }
  c.sku = peak->name;
  if (const auto tflops = peak->tflops_of(dtype)) {
    c.tflops = *tflops;
    c.source = fmt::format("{} ({})", named(peak->where), peak->source);
  } else {
    c.source = fmt::format("none: {} gives no {} peak for {}", named(peak->where), to_string(dtype),
                           peak->name);
  }
  return c;
}

std::vector<AxisValue> CublasLtBenchmark::defaults_here(const Axis &axis,
                                                        const RunContext &) const {
  std::vector<AxisValue> values;
  if (axis.name == "gpu")
    for (int d = 0; d < gpu::cuda_device_count(); ++d)
      values.emplace_back(std::int64_t{d});
  return values.empty() ? axis.defaults : values;
}

std::optional<std::string> CublasLtBenchmark::supported(const RunContext &,
                                                        const Point &point) const {
  // First what holds on any machine, GPU or not: a point that does not apply (a TP degree that
  // does not split the model, an attention BMM's wgrad) is waived as such everywhere.
  CublasLtOptions o;
  GemmPlan p;
  try {
    o = cublaslt_options(point);
    p = plan(point);
  } catch (const InputError &e) {
    return e.problem();
  }
  for (Layout l : gemm_layouts(o, p))
    if (auto why = layout_problem(o.dtype, l))
      return why;
  if (auto why = gpu::cuda_unavailable_reason())
    return why;
  const int count = gpu::cuda_device_count();
  if (auto why = gpu::gpu_not_visible(o.gpu, count))
    return why;
  gpu::CudaDeviceInfo info;
  try {
    info = gpu::cuda_device_info(o.gpu);
  } catch (const BackendError &e) {
    return fmt::format("CUDA device {} cannot be queried: {}", o.gpu, e.what());
  }
  if (auto why = dtype_capability_problem(o.dtype, info.compute_capability))
    return fmt::format("{} ({})", *why, info.name);
  std::uint64_t set_bytes = 0;
  for (const auto &g : p.gemms)
    set_bytes += operand_set_bytes(g, o.dtype);
  return tp_memory_problem(static_cast<double>(set_bytes + kLtWorkspaceBytes), info,
                           "the operands");
}

std::optional<std::string> tp_memory_problem(double need_bytes, const gpu::CudaDeviceInfo &info,
                                             std::string_view what) {
  if (need_bytes <= kMaxFreeMemoryShare * static_cast<double>(info.free_memory_bytes))
    return std::nullopt;
  return fmt::format("{} need {:.3g} GB, more than {:.0f}% of the {:.3g} GB free on GPU {} ({}): "
                     "use a larger tp or a smaller seq/micro_batch",
                     what, need_bytes / 1e9, 100 * kMaxFreeMemoryShare,
                     static_cast<double>(info.free_memory_bytes) / 1e9, info.index, info.name);
}

Outcome CublasLtBenchmark::run(RunContext &ctx, const Point &point) {
  if (auto why = supported(ctx, point))
    return Outcome::waived(*why);
  const GemmPlan p = plan(point);
  const CublasLtOptions o = cublaslt_options(point);
  const std::vector<Layout> layouts = gemm_layouts(o, p);
  Outcome out = run_cublaslt(ctx, p, o, layouts, before_verify_);
  for (const auto &[name, value] : p.derived.items())
    out.derived_params[name] = value;
  // params.layout: what ran ("nn", "nn+tn" for a BMM's two dgrad GEMMs); layouts_from: whether
  // the axis forced it or training chose it (the TP table groups by the latter).
  std::string ran;
  for (Layout l : layouts)
    ran += (ran.empty() ? "" : "+") + std::string(to_string(l));
  out.derived_params[record::kLayout] = ran;
  out.derived_params[record::kLayoutsFrom] = o.layout ? "axis" : std::string(kTrainingLayouts);
  return out;
}

} // namespace railgauge::gemm
