#pragma once
// The cuBLASLt GEMM backend (docs/gemm.md):
//   gemm.cublaslt       transformer GEMMs under TP (default gpt3-175b, t = 1..64, bf16)
//   gemm.cublaslt_size  a size sweep (default square 256..16384 ×2, bf16)
// dtypes bf16, fp16, fp8_e4m3 (bf16 out), tf32, fp32; layouts nt (default) and nn
// (cublaslt_plan.h); one GPU per point (axis `gpu`).
//
// One point (run_cublaslt()):
//  1. Operands: seeded on the GPU, never zero; enough copies rotated per call that small shapes
//     do not run from L2 (operand_rotation(); params operand_sets and l2_policy say which).
//  2. Algorithms: the heuristic's top_k candidates for every GEMM of the plan (32 MiB
//     workspace), each run once; one cublasLtMatmul refuses is dropped and listed in
//     refused_algos (a GEMM with none left is waived). With top_k > 1, each candidate is screened
//     with a short measurement; then the heuristic's first pick that runs (what a framework gets)
//     and the fastest candidate (what is achievable) are measured in full through
//     RunContext::measure with the CUDA-event timer. The main metrics (time_s, tflops, efficiency)
//     are the heuristic pick's; best_* are the better of the two full measurements; every algorithm
//     is in the record with its id, tile, stages, split-K and cluster shape.
//  3. Efficiency: against the dense peak of the dtype for this GPU (-a peak_tflops, else
//     results/peaks/gpu_peaks.yaml by device name), and in the TP table against the best
//     measured in the run.
//  4. Data check (unless --no-verify): the output of each measured algorithm, written into
//     memory filled with NaN, is compared on kVerifiedElementsPerGemm sampled elements with an
//     fp64 reference of the same stored inputs within verify_bound(dtype) (verify_bound.h).
//  5. Telemetry: clocks, power, temperature and throttle reasons before and after (NVML).
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "gemm/cuda/cublaslt_plan.h"
#include "gemm/gemm_point.h"
#include "harness/benchmark.h"
#include "harness/cuda/device.h"

namespace railgauge::gemm {

// The axes every cuBLASLt benchmark adds to its shape axes: gpu, layout, top_k. With
// `training_layouts` (the TP keys) the layout axis also takes "training", its default: each
// GEMM in the layout training runs it in; else its default is nt.
std::vector<Axis> cublaslt_axes(bool training_layouts);

struct CublasLtOptions {
  Dtype dtype = Dtype::bf16;
  std::optional<Layout> layout; // the axis's layout; nullopt: "training"
  int gpu = 0;
  int top_k = 8;
  double peak_tflops = 0; // the axis: > 0 overrides the table
};
// Reads the options of a point. Throws InputError for a bad dtype, layout or top_k.
CublasLtOptions cublaslt_options(const Point &point);

// The layout each GEMM of `plan` runs in: the axis's, or with "training" the plan's training
// layouts as the dtype runs them (layout_for_dtype; nt for a plan without any).
std::vector<Layout> gemm_layouts(const CublasLtOptions &o, const GemmPlan &plan);

// The dense peak used for `efficiency`: the axis when > 0, else the table's entry for
// `device_name` and `dtype`; tflops 0 when there is none, with `source` saying why.
struct PeakChoice {
  double tflops = 0;
  std::string sku;    // the table's name of the GPU, or ""
  std::string source; // "axis peak_tflops", "<table>:<line> (<citation>)", or why there is none
  // What <table> is relative to (data_file_name): records name no machine's absolute path.
  std::string table_origin;
};
PeakChoice choose_gpu_peak(double axis_peak_tflops, const std::string &table_path,
                           const std::string &device_name, Dtype dtype);

// The share of a GPU's free memory one point may take (operands of one set + workspace; the
// rotated sets take at most half of the free memory).
inline constexpr double kMaxFreeMemoryShare = 0.8;

// Why `what` ("the operands") cannot take `need_bytes` on the GPU `info` describes (more than
// kMaxFreeMemoryShare of its free memory), or nullopt: a TP point's waiver, naming the fix.
std::optional<std::string> tp_memory_problem(double need_bytes, const gpu::CudaDeviceInfo &info,
                                             std::string_view what);

// A test hook, called after a measured algorithm has written its output and before the data
// check, with the GEMM's index in the plan, its output on the device and its size in bytes.
using LtBeforeVerify = std::function<void(std::size_t gemm, void *c, std::uint64_t bytes)>;

// Runs one planned point on a GPU (cublaslt_run.cpp; cublaslt_run_stub.cpp waives it).
// `layouts`: gemm_layouts(options, plan), one per GEMM.
Outcome run_cublaslt(RunContext &ctx, const GemmPlan &plan, const CublasLtOptions &options,
                     const std::vector<Layout> &layouts, const LtBeforeVerify &before_verify);

class CublasLtBenchmark : public KeyedBenchmark {
public:
  using KeyedBenchmark::KeyedBenchmark;
  // `gpu`: every visible GPU, as the HBM and offload families sweep them, so that one process on
  // a node measures (and a burn-in judges) each GPU; one rank per GPU under srun sees one.
  std::vector<AxisValue> defaults_here(const Axis &axis, const RunContext &ctx) const override;
  std::optional<std::string> supported(const RunContext &ctx, const Point &point) const override;
  Outcome run(RunContext &ctx, const Point &point) override;
  virtual GemmPlan plan(const Point &point) const = 0;

  void set_before_verify(LtBeforeVerify hook) { before_verify_ = std::move(hook); }

private:
  LtBeforeVerify before_verify_;
};

std::unique_ptr<CublasLtBenchmark> make_cublaslt();
std::unique_ptr<CublasLtBenchmark> make_cublaslt_size();

} // namespace railgauge::gemm
