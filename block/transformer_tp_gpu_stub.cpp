// block.transformer_tp_gpu in a build without CUDA or NCCL: every point waived, same key and axes.
#include "block/transformer_tp_axes.h"
#include "block/transformer_tp_gpu.h"
#include "harness/waived_benchmark.h"
#include "railgauge/config.h"
#include "records/block_record.h"

namespace railgauge::block {

std::unique_ptr<Benchmark> make_transformer_tp_gpu(std::shared_ptr<GpuBlockTestHooks>) {
  return make_waived_benchmark(
      record::kTransformerTpGpu,
      "one Megatron transformer block on GPUs with its TP collectives (needs CUDA and NCCL)",
      transformer_tp_axes("gpt3-175b"),
      RAILGAUGE_HAS_CUDA ? "built without NCCL" : "built without the CUDA toolkit");
}

} // namespace railgauge::block
