#include "block/register_block.h"

#include "block/transformer_tp.h"

namespace railgauge {

void register_block(Registry &registry) {
  registry.add(block::make_transformer_tp(std::make_shared<block::BlockTestHooks>()));
}

} // namespace railgauge
