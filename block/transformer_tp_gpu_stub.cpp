// block.transformer_tp_gpu in a build without CUDA or NCCL: every point waived, same key and axes.
#include "block/transformer_tp_axes.h"
#include "block/transformer_tp_gpu.h"
#include "railgauge/config.h"
#include "records/block_record.h"

namespace railgauge::block {
namespace {

class WaivedTransformerTpGpu final : public Benchmark {
public:
  std::string_view key() const override { return record::kTransformerTpGpu; }
  std::string_view description() const override {
    return "one Megatron transformer block on GPUs with its TP collectives (needs CUDA and NCCL)";
  }
  std::vector<Axis> axes() const override { return transformer_tp_axes("gpt3-175b"); }
  std::optional<std::string> supported(const RunContext &, const Point &) const override {
    return reason();
  }
  Outcome run(RunContext &, const Point &) override { return Outcome::waived(reason()); }

private:
  static std::string reason() {
    return RAILGAUGE_HAS_CUDA ? "built without NCCL" : "built without the CUDA toolkit";
  }
};

} // namespace

std::unique_ptr<Benchmark> make_transformer_tp_gpu(std::shared_ptr<GpuBlockTestHooks>) {
  return std::make_unique<WaivedTransformerTpGpu>();
}

} // namespace railgauge::block
