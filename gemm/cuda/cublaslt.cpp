#include <memory>

#include "gemm/cuda/cublaslt.h"
#include "records/gemm_record.h"

namespace railgauge::gemm {
namespace {

constexpr Dtype kGpuDtypes[] = {Dtype::bf16, Dtype::fp16, Dtype::fp8_e4m3, Dtype::tf32,
                                Dtype::fp32};

// The headline: every GEMM of a GPT-3 block at t = 1..64 in bf16 (t = 64 is waived: 96 heads).
class CublasLt final : public CublasLtBenchmark {
public:
  std::string_view key() const override { return record::kCublasLt; }
  std::string_view description() const override {
    return "GPU GEMM (cuBLASLt) TFLOP/s and efficiency of a transformer block's GEMMs (fwd, "
           "dgrad, wgrad) under tensor parallelism t";
  }
  std::vector<Axis> axes() const override {
    auto axes = tp_sweep_axes({"gpt3-175b",
                               {1, 2, 4, 8, 16, 32, 64},
                               {std::begin(kGpuDtypes), std::end(kGpuDtypes)},
                               {Dtype::bf16}});
    for (auto &axis : cublaslt_axes(true))
      axes.push_back(std::move(axis));
    return axes;
  }
  GemmPlan plan(const Point &point) const override { return plan_tp_point(point); }
};

} // namespace

std::unique_ptr<CublasLtBenchmark> make_cublaslt() { return std::make_unique<CublasLt>(); }

} // namespace railgauge::gemm
