#include <memory>

#include "gemm/cuda/cublaslt.h"
#include "records/gemm_record.h"

namespace railgauge::gemm {
namespace {

constexpr Dtype kGpuDtypes[] = {Dtype::bf16, Dtype::fp16, Dtype::fp8_e4m3, Dtype::tf32,
                                Dtype::fp32};

// The headline: every GEMM of a transformer layer at t = 1..32 in bf16, for the shapes where the
// fall with t shows. On one H200 (2026-11-27, tests/fixtures/gemm-h200) GPT-3 175B at seq 2048
// and micro-batch 1 kept its layer's GEMMs at 0.67-0.74 of the peak up to t = 32: its shards stay
// large. A smaller model (Llama-3 70B: h 8192, 8 kv heads) and fewer tokens per GEMM (micro-batch
// 1 and 2, seq 2048 and 4096: 2048 to 8192 tokens) thin them sooner. The sweep is 432 points,
// 384 measured (the attention BMMs have no wgrad); the recorded run spent 0.85 s per measured
// point at --time-budget 0.2, and the sustained window (harness/measure.h, gpu_min_timed_s) adds
// at most 0.4 s (two measurements of 0.2 s): 5.5 to 8 minutes per GPU. t = 64 and GPT-3 are asked
// for by name (`--model gpt3-175b -a seq=2048 -a micro_batch=1`, the reference runs' sweep).
class CublasLt final : public CublasLtBenchmark {
public:
  CublasLt()
      : CublasLtBenchmark(
            record::kCublasLt,
            "GPU GEMM (cuBLASLt) TFLOP/s and efficiency of a transformer block's GEMMs (fwd, "
            "dgrad, wgrad) under tensor parallelism t") {}
  std::vector<Axis> axes() const override {
    auto axes = tp_sweep_axes({"llama3-70b",
                               {1, 2, 4, 8, 16, 32},
                               {std::begin(kGpuDtypes), std::end(kGpuDtypes)},
                               {Dtype::bf16}});
    for (auto &axis : axes)
      if (axis.name == record::kSeq)
        axis.defaults = {std::int64_t{2048}, std::int64_t{4096}};
      else if (axis.name == record::kMicroBatch)
        axis.defaults = {std::int64_t{1}, std::int64_t{2}};
    for (auto &axis : cublaslt_axes(true))
      axes.push_back(std::move(axis));
    return axes;
  }
  GemmPlan plan(const Point &point) const override { return plan_tp_point(point); }
};

} // namespace

std::unique_ptr<CublasLtBenchmark> make_cublaslt() { return std::make_unique<CublasLt>(); }

} // namespace railgauge::gemm
