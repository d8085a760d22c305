#include "collectives/nccl/register_collectives_nccl.h"
#include "records/collective_record.h"

#include "collectives/nccl/nccl_collective.h"

namespace railgauge::collectives {

void register_collectives_nccl(Registry &registry) {
  for (auto kind : all_kinds())
    registry.add(make_nccl_collective(kind));
  for (auto kind : all_kinds())
    if (record::keys_of(kind).nccl_textbook)
      registry.add(make_nccl_textbook(kind));
  registry.add(make_nccl_all_reduce_with_gemm());
}

} // namespace railgauge::collectives
