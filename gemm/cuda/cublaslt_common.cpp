// Waivers of the cuBLASLt benchmarks; compiled in every build (device.h has a stub without CUDA).
#include "gemm/cuda/cublaslt.h"

#include "harness/cuda/device.h"
#include "harness/error.h"

namespace railgauge::gemm {

std::optional<std::string> CublasLtBenchmark::supported(const RunContext &,
                                                        const Point &point) const {
  if (auto why = gpu::cuda_unavailable_reason())
    return why;
  try {
    plan(point);
  } catch (const InputError &e) {
    return e.problem();
  }
  return "the cuBLASLt measuring path is not implemented yet (docs/gemm.md, \"Left out\")";
}

Outcome CublasLtBenchmark::run(RunContext &ctx, const Point &point) {
  return Outcome::waived(supported(ctx, point).value_or("not implemented"));
}

} // namespace railgauge::gemm
