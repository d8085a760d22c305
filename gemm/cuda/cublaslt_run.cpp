// run_cublaslt() for CUDA builds (cublaslt_run_stub.cpp without CUDA). See cublaslt.h for what
// one point does.
#include <algorithm>
#include <cmath>
#include <vector>

#include <cuda_runtime_api.h>
#include <fmt/format.h>

#include "gemm/cuda/cublaslt.h"
#include "gemm/cuda/gemm_kernels.h"
#include "gemm/cuda/lt_matmul.h"
#include "gemm/cuda/reference_check.h"
#include "gemm/gpu_peaks.h"
#include "harness/byte_rates.h"
#include "harness/cuda/check.h"
#include "harness/cuda/device.h"
#include "harness/cuda/event_timer.h"
#include "harness/cuda/launched_kernels.h"
#include "harness/cuda/resources.h"
#include "harness/device_fields.h"
#include "harness/error.h"
#include "harness/inventory/gpu_monitor.h"
#include "harness/inventory/gpu_settle.h"
#include "harness/inventory/gpu_telemetry.h"
#include "harness/run_context.h"
#include "records/gemm_cublaslt_fields.h"
#include "records/gemm_record.h"

namespace railgauge::gemm {
namespace {

constexpr std::uint64_t kSeed = 0x7261696c;

// The operands of one GEMM of the plan, `sets` copies of each, rotated per call.
struct GemmOperands {
  GemmShape shape;
  LtMatmul lt;
  std::uint64_t a_bytes, b_bytes, c_bytes; // one set, 256-byte aligned
  gpu::DeviceBuffer a, b, c;
  std::vector<cublasLtMatmulHeuristicResult_t> candidates; // those cublasLtMatmul runs
  std::size_t offered = 0;                                 // what the heuristic returned

  GemmOperands(const GemmShape &s, Dtype dtype, Layout layout, const float *scales, int sets)
      : shape(s), lt(s, dtype, layout, scales),
        a_bytes(aligned_bytes(elements(s.m, s.k) * element_bytes(dtype_storage(dtype).a))),
        b_bytes(aligned_bytes(elements(s.k, s.n) * element_bytes(dtype_storage(dtype).b))),
        c_bytes(aligned_bytes(elements(s.m, s.n) * element_bytes(dtype_storage(dtype).c))),
        a(a_bytes * static_cast<std::uint64_t>(sets)),
        b(b_bytes * static_cast<std::uint64_t>(sets)),
        c(c_bytes * static_cast<std::uint64_t>(sets)) {}

  std::uint64_t elements(std::int64_t rows, std::int64_t cols) const {
    return static_cast<std::uint64_t>(shape.batch) * static_cast<std::uint64_t>(rows) *
           static_cast<std::uint64_t>(cols);
  }
  const void *a_at(int set) const { return a.as<char>() + a_bytes * std::uint64_t(set); }
  const void *b_at(int set) const { return b.as<char>() + b_bytes * std::uint64_t(set); }
  void *c_at(int set) const { return c.as<char>() + c_bytes * std::uint64_t(set); }
};

// Sets the measurement settings for a scope and restores the point's own afterwards.
class MeasureSpecScope {
public:
  MeasureSpecScope(RunContext &ctx, const MeasureSpec &spec)
      : ctx_(ctx), saved_(ctx.measure_spec()) {
    ctx_.set_measure_spec(spec);
  }
  ~MeasureSpecScope() { ctx_.set_measure_spec(saved_); }
  MeasureSpecScope(const MeasureSpecScope &) = delete;
  MeasureSpecScope &operator=(const MeasureSpecScope &) = delete;

private:
  RunContext &ctx_;
  MeasureSpec saved_;
};

// Screening a candidate: a few samples, a quarter of the point's budget.
MeasureSpec screening_spec(const MeasureSpec &point) {
  MeasureSpec s = point;
  s.warmup_runs = 1;
  s.max_samples = std::max(1, std::min(point.max_samples, 20));
  s.min_samples = std::min(3, s.max_samples);
  s.time_budget_s = std::max(0.01, point.time_budget_s / 4);
  // Screening ranks the candidates; the sustained window is for the two full measurements,
  // where eight candidates at 0.2 s each would add 1.6 s to every point.
  s.gpu_min_timed_s = 0;
  return s;
}

struct Runner {
  const gpu::CudaEventTimer &timer;
  const LtHandle &handle;
  const gpu::DeviceBuffer &workspace;
  std::vector<GemmOperands> &gemms;
  int sets = 1;
  int next_set = 0;

  // One call of the measured operation: the GEMMs `which` (all when empty) with algorithm
  // picks[g] each, on the next operand set.
  void call(const std::vector<const cublasLtMatmulAlgo_t *> &picks, std::ptrdiff_t only = -1) {
    for (std::size_t g = 0; g < gemms.size(); ++g) {
      if (only >= 0 && static_cast<std::size_t>(only) != g)
        continue;
      const GemmOperands &x = gemms[g];
      const cublasStatus_t status =
          x.lt.run(handle, *picks[g], x.a_at(next_set), x.b_at(next_set), x.c_at(next_set),
                   workspace.get(), workspace.bytes(), timer.stream());
      if (status != CUBLAS_STATUS_SUCCESS)
        throw BackendError(gpu::status_message(status, "cublasLtMatmul", __FILE__, __LINE__));
    }
    next_set = (next_set + 1) % sets;
  }
};

// The kernels one call with `picks` launched, by name, or why they are not known.
nlohmann::json launched_kernels(Runner &runner,
                                const std::vector<const cublasLtMatmulAlgo_t *> &picks) {
  const gpu::LaunchedKernels k = gpu::kernels_launched_by([&] { runner.call(picks); });
  if (!k.why_not.empty())
    return "unknown: " + k.why_not;
  return k.names;
}

struct CheckResult {
  std::int64_t checked = 0, wrong = 0;
  double worst = 0; // NaN when an element was NaN or Inf
};

CheckResult check_output(const GemmOperands &x, Dtype dtype, Layout layout, cudaStream_t stream,
                         std::uint64_t seed) {
  const auto &s = x.shape;
  const auto picked = sampled_elements(s.batch * s.m * s.n, kVerifiedElementsPerGemm, seed);
  const std::vector<double> host = sampled_reference_errors(
      reference_problem(x.a_at(0), x.b_at(0), x.c_at(0), dtype, s, layout), picked, stream);
  CheckResult r;
  for (double e : host) {
    ++r.checked;
    if (!(e <= 1.0)) // over the bound; NaN compares false: wrong
      ++r.wrong;
    r.worst = std::isnan(e) || std::isnan(r.worst) ? std::nan("") : std::max(r.worst, e);
  }
  return r;
}

// The candidate each GEMM of a point ran with, as the record lists them.
template <class Gemms>
nlohmann::json algos_picked(const Gemms &gemms,
                            const std::vector<const cublasLtMatmulAlgo_t *> &picks) {
  auto algos = nlohmann::json::array();
  for (std::size_t g = 0; g < gemms.size(); ++g)
    for (const auto &c : gemms[g].candidates)
      if (&c.algo == picks[g])
        algos.push_back(algo_json(c));
  return algos;
}

using AlgoPicks = std::vector<const cublasLtMatmulAlgo_t *>;

// Times each candidate of GEMM g at the screening budget: best_picks[g] becomes the fastest.
// Returns every candidate's screening entry, as the record lists them.
nlohmann::json screen_candidates(RunContext &ctx, gpu::CudaEventTimer &timer, Runner &runner,
                                 GpuSettleProbe &settle, const std::vector<GemmOperands> &gemms,
                                 const AlgoPicks &heuristic_picks, AlgoPicks &best_picks) {
  nlohmann::json candidates = nlohmann::json::array();
  const MeasureSpecScope scope(ctx, screening_spec(ctx.measure_spec()));
  for (std::size_t g = 0; g < gemms.size(); ++g) {
    const auto &x = gemms[g];
    if (x.candidates.size() < 2)
      continue;
    double best_median = 0;
    for (std::size_t c = 0; c < x.candidates.size(); ++c) {
      nlohmann::json entry = algo_json(x.candidates[c]);
      entry[record::kAlgoGemm] = g;
      entry[record::kAlgoRank] = c;
      std::vector<const cublasLtMatmulAlgo_t *> picks = heuristic_picks;
      picks[g] = &x.candidates[c].algo;
      const Measurement m = ctx.measure(
          timer, [&] { runner.call(picks, static_cast<std::ptrdiff_t>(g)); }, &settle);
      entry[record::kAlgoScreenTimeS] = m.time_s.median;
      entry[record::kAlgoScreenTflops] = tflops_of(gemm_flops(x.shape), m.time_s.median);
      candidates.push_back(entry);
      if (best_median == 0 || m.time_s.median < best_median) {
        best_median = m.time_s.median;
        best_picks[g] = &x.candidates[c].algo;
      }
    }
  }
  return candidates;
}

// Runs each GEMM once more with the picks that were timed, on operand set 0, and checks a sample
// of its output against the fp64 reference: the record's verification fields, and in `problems`
// each GEMM's that failed.
record::DataCheckFields
verify_outputs(const std::vector<GemmOperands> &gemms, const LtHandle &handle,
               const gpu::DeviceBuffer &workspace, cudaStream_t stream, const CublasLtOptions &o,
               const std::vector<Layout> &layouts, const LtBeforeVerify &before_verify,
               const AlgoPicks &heuristic_picks, const AlgoPicks &best_picks, bool same,
               std::vector<std::string> &problems) {
  std::int64_t checked = 0, wrong = 0;
  double worst = 0;
  const auto verify = [&](const std::vector<const cublasLtMatmulAlgo_t *> &picks,
                          const char *which) {
    for (std::size_t g = 0; g < gemms.size(); ++g) {
      const auto &x = gemms[g];
      // NaN bytes first: an element the GEMM does not write fails the check.
      RAILGAUGE_CUDA_CALL(cudaMemsetAsync(x.c_at(0), 0xff, x.c_bytes, stream));
      RAILGAUGE_CUBLAS_CALL(x.lt.run(handle, *picks[g], x.a_at(0), x.b_at(0), x.c_at(0),
                                     workspace.get(), workspace.bytes(), stream));
      RAILGAUGE_CUDA_CALL(cudaStreamSynchronize(stream));
      if (before_verify)
        before_verify(g, x.c_at(0), x.c_bytes);
      const CheckResult r = check_output(x, o.dtype, layouts[g], stream, kSeed + g);
      checked += r.checked;
      wrong += r.wrong;
      worst = std::isnan(r.worst) || std::isnan(worst) ? std::nan("") : std::max(worst, r.worst);
      if (r.wrong > 0)
        problems.push_back(fmt::format(
            "{} algorithm, GEMM {}: {} of {} sampled output elements differ from the fp64 "
            "reference by more than {} (worst {:.3g} times that)",
            which, g, r.wrong, r.checked, verify_bound_text(o.dtype), r.worst));
    }
  };
  verify(heuristic_picks, "heuristic");
  if (!same)
    verify(best_picks, "best");
  // A NaN or Inf output is reported by its count; its worst error has no figure.
  return {checked, wrong, std::isnan(worst) ? std::nullopt : std::optional(worst),
          verify_bound_json(o.dtype)};
}

// What a point ran on and with: the GPU and its peak, cuBLASLt, the candidates its heuristic
// offered the first GEMM, how the operands were rotated past L2 and how the calls were launched.
nlohmann::json lt_derived_params(const gpu::CudaDeviceInfo &info, const PeakChoice &peak,
                                 std::size_t offered, const OperandRotation &rotation) {
  return {{record::kGpuName, info.name},
          {record::kGpuSku, peak.sku},
          {record::kPeakSource, peak.source},
          {record::kPeakTableOrigin, peak.table_origin},
          {record::kCublasltVersion, cublaslt_version()},
          {record::kWorkspaceBytes, kLtWorkspaceBytes},
          {record::kCandidatesReturned, offered},
          {record::kOperandSets, rotation.sets},
          {record::kOperandBytesRotated, rotation.total_bytes},
          {record::kL2Bytes, info.l2_bytes},
          {record::kL2Policy, rotation.policy},
          {record::kLaunch, record::kLaunchStream}};
}

// How the plan's operand sets rotate past L2, within half the free memory.
OperandRotation plan_rotation(const GemmPlan &plan, Dtype dtype, const gpu::CudaDeviceInfo &info) {
  std::uint64_t set_bytes = 0;
  for (const auto &g : plan.gemms)
    set_bytes += operand_set_bytes(g, dtype);
  return operand_rotation(set_bytes, info.l2_bytes, info.free_memory_bytes / 2);
}

// The plan's GEMMs as the record lists them, each with the layout it ran in; null for a plan
// that lists none (a size point's one GEMM is its params).
nlohmann::json gemms_ran(const GemmPlan &plan, const std::vector<Layout> &layouts) {
  nlohmann::json gemms = plan.gemm_list;
  for (std::size_t g = 0; g < layouts.size() && g < gemms.size(); ++g)
    gemms[g][record::kLayout] = std::string(to_string(layouts[g]));
  return gemms;
}

// The point when cuBLASLt runs no algorithm for a GEMM: waived, with what it refused and the
// plan's GEMMs.
Outcome no_algorithm_outcome(const GemmOperands &x, Dtype dtype, Layout layout,
                             const gpu::CudaDeviceInfo &info, const nlohmann::json &refused,
                             const nlohmann::json &gemms) {
  Outcome waived = Outcome::waived(fmt::format(
      "cuBLASLt {} has no algorithm it will run for {} {}×{}×{} (batch {}) in layout {} on {} "
      "({}: a dimension's alignment or the dtype/layout combination){}",
      cublaslt_version(), to_string(dtype), x.shape.m, x.shape.n, x.shape.k, x.shape.batch,
      to_string(layout), info.name,
      x.offered == 0 ? std::string("its heuristic offers none")
                     : fmt::format("it refused all {} its heuristic offered", x.offered),
      refused.empty()
          ? std::string()
          : "; the last refusal: " + refused.back().at(record::kAlgoError).get<std::string>()));
  waived.metrics[record::kRefusedAlgos] = refused;
  if (!gemms.is_null())
    waived.metrics[record::kGemms] = gemms;
  return waived;
}

} // namespace

Outcome run_cublaslt(RunContext &ctx, const GemmPlan &plan, const CublasLtOptions &o,
                     const std::vector<Layout> &layouts, const LtBeforeVerify &before_verify) {
  const gpu::CudaDeviceInfo info = gpu::cuda_device_info(o.gpu);
  const gpu::DeviceGuard guard(o.gpu);
  const nlohmann::json telemetry_before = sample_gpu_telemetry(info.uuid);

  gpu::CudaEventTimer timer(o.gpu);
  const cudaStream_t stream = timer.stream();
  const LtHandle handle;
  const gpu::DeviceBuffer workspace(kLtWorkspaceBytes);
  const gpu::DeviceBuffer scales = device_fp8_scales(stream);

  const OperandRotation rotation = plan_rotation(plan, o.dtype, info);

  std::vector<GemmOperands> gemms;
  gemms.reserve(plan.gemms.size());
  nlohmann::json refused = nlohmann::json::array();
  const DtypeStorage storage = dtype_storage(o.dtype);
  for (std::size_t g = 0; g < plan.gemms.size(); ++g) {
    auto &x =
        gemms.emplace_back(plan.gemms[g], o.dtype, layouts[g], scales.as<float>(), rotation.sets);
    fill_operand(x.a.get(), storage.a, x.a.bytes() / element_bytes(storage.a), kSeed + 2 * g,
                 stream);
    fill_operand(x.b.get(), storage.b, x.b.bytes() / element_bytes(storage.b), kSeed + 2 * g + 1,
                 stream);
    x.candidates = x.lt.heuristic(handle, o.top_k, workspace.bytes(), false);
    x.offered = x.candidates.size();
    // A candidate cublasLtMatmul refuses is listed in the record, never timed or picked: the
    // heuristic's pick is then its first candidate that runs.
    for (auto &entry : drop_refused(x.lt, handle, x.candidates, x.a_at(0), x.b_at(0), x.c_at(0),
                                    workspace.get(), workspace.bytes(), stream)) {
      entry[record::kAlgoGemm] = g;
      refused.push_back(std::move(entry));
    }
    if (x.candidates.empty())
      return no_algorithm_outcome(x, o.dtype, layouts[g], info, refused, gemms_ran(plan, layouts));
  }

  Runner runner{timer, handle, workspace, gemms, rotation.sets, 0};
  std::vector<const cublasLtMatmulAlgo_t *> heuristic_picks, best_picks;
  for (std::size_t g = 0; g < gemms.size(); ++g) {
    auto &x = gemms[g];
    heuristic_picks.push_back(&x.candidates.front().algo);
    best_picks.push_back(&x.candidates.front().algo);
  }
  // Every timed call waits for the GPU's clocks and power to settle first (the first call does;
  // the probe then answers at once).
  GpuSettleProbe settle(info.uuid);
  // Screen the candidates of each GEMM on its own (a BMM dgrad's two GEMMs pick separately).
  const nlohmann::json candidates =
      o.top_k > 1
          ? screen_candidates(ctx, timer, runner, settle, gemms, heuristic_picks, best_picks)
          : nlohmann::json::array();

  GpuMonitor monitor(info.uuid); // the GPU while the two full measurements run
  const Measurement heuristic = ctx.measure(
      timer, [&] { runner.call(heuristic_picks); }, &settle);
  const bool same = best_picks == heuristic_picks;
  const Measurement best_try = same ? heuristic
                                    : ctx.measure(
                                          timer, [&] { runner.call(best_picks); }, &settle);
  const nlohmann::json during = monitor.stop();
  // The achievable figure is the faster of the two full measurements.
  const bool heuristic_wins = best_try.time_s.median >= heuristic.time_s.median;
  const Measurement &best = heuristic_wins ? heuristic : best_try;
  const auto &winning_picks = heuristic_wins ? heuristic_picks : best_picks;

  const PeakChoice peak =
      choose_gpu_peak(o.peak_tflops, default_gpu_peaks_path(), info.name, o.dtype);
  record::CublasLtFields fields;
  fields.rates = gemm_rates(heuristic, plan, o.dtype, peak.tflops);
  fields.best = record::BestPick::of(plan.flops(), best.time_s, fields.rates, heuristic_wins);
  fields.heuristic_algos = algos_picked(gemms, heuristic_picks);
  fields.best_algos = algos_picked(gemms, winning_picks);
  // After the timed window, so the capture costs the figures nothing.
  const nlohmann::json heuristic_kernels = launched_kernels(runner, heuristic_picks);
  fields.launched_kernels = {
      {record::kLaunchedHeuristic, heuristic_kernels},
      {record::kLaunchedBest, same ? heuristic_kernels : launched_kernels(runner, best_picks)}};
  fields.candidates = candidates;
  fields.refused_algos = refused;
  fields.lt_types = gemms.front().lt.types_json();
  fields.gemms = gemms_ran(plan, layouts);
  std::vector<std::string> problems;
  if (ctx.verify())
    fields.check = verify_outputs(gemms, handle, workspace, stream, o, layouts, before_verify,
                                  heuristic_picks, best_picks, same, problems);
  fields.verified = fields.check.has_value() && problems.empty();

  Outcome out;
  out.metrics = heuristic.to_json();
  fields.write(out.metrics);
  if (fields.check)
    out.conclude_data_check(problems);
  out.device = {{device::kGpu, info.uuid}, {device::kPci, info.pci_bus_id}};
  out.derived_params = lt_derived_params(info, peak, gemms.front().offered, rotation);
  out.metrics[record::kTelemetry] =
      telemetry_pair(telemetry_before, during, sample_gpu_telemetry(info.uuid));
  return out;
}

} // namespace railgauge::gemm
