#include "block/register_block.h"

#include "block/transformer_tp.h"
#include "block/transformer_tp_gpu.h"

namespace railgauge {

void register_block(Registry &registry) {
  registry.add(block::make_transformer_tp(std::make_shared<block::BlockTestHooks>()));
  registry.add(block::make_transformer_tp_gpu(std::make_shared<block::GpuBlockTestHooks>()));
}

} // namespace railgauge
