#include <memory>

#include "gemm/cuda/cublaslt.h"
#include "records/gemm_record.h"

namespace railgauge::gemm {
namespace {

// Square GEMMs from 256 (launch-bound) to 16384 (at the plateau: [AZ]'s FP8 square sweep is
// flat from 8k). `-a m=1:16384:*2 -a n=12288 -a k=5376` sweeps one dimension with the others
// fixed; `-a batch=96 -a m=2048 -a n=2048 -a k=128` is a strided-batched attention BMM.
class CublasLtSize final : public CublasLtBenchmark {
public:
  CublasLtSize()
      : CublasLtBenchmark(
            record::kCublasLtSize,
            "GPU GEMM (cuBLASLt) TFLOP/s and efficiency against M, N, K (square by default)") {}
  std::vector<Axis> axes() const override {
    auto axes =
        size_sweep_axes({Dtype::bf16, Dtype::fp16, Dtype::fp8_e4m3, Dtype::tf32, Dtype::fp32},
                        {Dtype::bf16}, {256, 512, 1024, 2048, 4096, 8192, 16384});
    for (auto &axis : cublaslt_axes(false))
      axes.push_back(std::move(axis));
    return axes;
  }
  GemmPlan plan(const Point &point) const override { return plan_size_point(point); }
};

} // namespace

std::unique_ptr<CublasLtBenchmark> make_cublaslt_size() { return std::make_unique<CublasLtSize>(); }

} // namespace railgauge::gemm
