#include <memory>

#include "gemm/cpu_blas.h"
#include "records/gemm_record.h"

namespace railgauge::gemm {
namespace {

// GEMM TFLOP/s against size on the CPU: square by default; `-a m=1:4096:*2 -a n=12288
// -a k=5376` sweeps one dimension with the others fixed. The default stops at 2048 (17 GFLOP per
// call, a fraction of a second on 2 cores).
class CpuBlasSize final : public CpuBlasBenchmark {
public:
  CpuBlasSize()
      : CpuBlasBenchmark(record::kCpuBlasSize,
                         "CPU GEMM (OpenBLAS) TFLOP/s against M, N, K (square by default)") {}
  std::vector<Axis> axes() const override {
    auto axes = size_sweep_axes({Dtype::fp32, Dtype::fp64}, {Dtype::fp32, Dtype::fp64},
                                {64, 128, 256, 512, 1024, 2048});
    axes.push_back(rotate_axis());
    return axes;
  }
  GemmPlan plan(const Point &point) const override { return plan_size_point(point); }
};

} // namespace

std::unique_ptr<CpuBlasBenchmark> make_cpu_blas_size() { return std::make_unique<CpuBlasSize>(); }

} // namespace railgauge::gemm
