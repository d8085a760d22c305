#pragma once
// The cuBLASLt GEMM backend's keys, axes and waivers (docs/gemm.md):
//   gemm.cublaslt       transformer GEMMs under TP (default gpt3-175b, t = 1..64, bf16)
//   gemm.cublaslt_size  a size sweep (default square 256..16384 ×2, bf16)
// dtypes bf16, fp16, fp8_e4m3 (bf16 out), tf32, fp32.
//
// STATUS: the measuring path (handle, descriptors, heuristic and top-k algorithm timing,
// CudaEventTimer, rotated buffers, reference check) is not written yet. Every point is waived:
// with cuda_unavailable_reason() where there is no GPU, and with "not implemented" where there
// is one, so that runs and the TP table already carry the planned points.
#include <memory>

#include "gemm/gemm_point.h"
#include "harness/benchmark.h"

namespace railgauge::gemm {

class CublasLtBenchmark : public Benchmark {
public:
  std::optional<std::string> supported(const RunContext &ctx, const Point &point) const override;
  Outcome run(RunContext &ctx, const Point &point) override;
  virtual GemmPlan plan(const Point &point) const = 0;
};

std::unique_ptr<CublasLtBenchmark> make_cublaslt();
std::unique_ptr<CublasLtBenchmark> make_cublaslt_size();

} // namespace railgauge::gemm
