#include "collectives/nccl/register_collectives_nccl.h"

#include "collectives/nccl/nccl_collective.h"

namespace railgauge::collectives {

void register_collectives_nccl(Registry &registry) {
  for (auto kind : all_kinds())
    registry.add(make_nccl_collective(kind));
}

} // namespace railgauge::collectives
