#include <memory>

#include "gemm/cpu_blas.h"
#include "records/gemm_record.h"

namespace railgauge::gemm {
namespace {

// The TP sweep on the CPU. Its default model is cpu-small, because a real model's weights
// (GPT-3's MLP at t = 1: 2.4 GB of fp32) take minutes per point on a CPU; `-a model=gpt3-175b
// -a tp=8 -a seq=256` shrinks a real one to CPU size.
class CpuBlas final : public CpuBlasBenchmark {
public:
  CpuBlas()
      : CpuBlasBenchmark(
            record::kCpuBlas,
            "CPU GEMM (OpenBLAS) TFLOP/s of a transformer block's GEMMs (fwd, dgrad, wgrad) "
            "under tensor parallelism t") {}
  std::vector<Axis> axes() const override {
    auto axes =
        tp_sweep_axes({"cpu-small", {1, 2, 4, 8}, {Dtype::fp32, Dtype::fp64}, {Dtype::fp32}});
    axes.push_back(rotate_axis());
    return axes;
  }
  GemmPlan plan(const Point &point) const override { return plan_tp_point(point); }
};

} // namespace

std::unique_ptr<CpuBlasBenchmark> make_cpu_blas() { return std::make_unique<CpuBlas>(); }

} // namespace railgauge::gemm
