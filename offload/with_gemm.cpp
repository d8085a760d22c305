#include <memory>

#include "offload/offload_benchmark.h"

namespace railgauge::offload {
namespace {

// A host<->device copy and a bf16 GEMM on the same GPU, each measured alone and then together (the
// GEMM count per call balanced to the copy's time, so they overlap): the slowdown of each says
// whether offload hides behind compute, as a model that overlaps them assumes.
class WithGemm final : public OffloadBenchmark {
public:
  WithGemm() : OffloadBenchmark(OffloadPath::with_gemm) {}
  std::string_view key() const override { return "offload.with_gemm"; }
  std::string_view description() const override {
    return "host<->device copy concurrent with a bf16 cuBLASLt GEMM on the same GPU: each one's "
           "time alone and together, and the slowdown of each";
  }
};

} // namespace

std::unique_ptr<OffloadBenchmark> make_with_gemm() { return std::make_unique<WithGemm>(); }

} // namespace railgauge::offload
