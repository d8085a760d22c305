// block.transformer_tp in a build without MPI or OpenBLAS: every point waived, same key and axes.
#include "block/transformer_tp.h"
#include "block/transformer_tp_axes.h"
#include "harness/waived_benchmark.h"
#include "railgauge/config.h"
#include "records/block_record.h"

namespace railgauge::block {

std::unique_ptr<Benchmark> make_transformer_tp(std::shared_ptr<BlockTestHooks>) {
  return make_waived_benchmark(
      record::kTransformerTp,
      "one Megatron transformer block with its TP collectives (needs MPI and OpenBLAS)",
      transformer_tp_axes(), RAILGAUGE_HAS_MPI ? "built without OpenBLAS" : "built without MPI");
}

} // namespace railgauge::block
