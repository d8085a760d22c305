#include <string>

#include "collectives/nccl/register_collectives_nccl.h"
#include "collectives/waived_collective.h"
#include "collectives/with_gemm.h"
#include "records/collective_record.h"

namespace railgauge::collectives {

void register_collectives_nccl(Registry &registry) {
  const std::string why = "built without NCCL (needs CUDA and NCCL at configure time)";
  for (const auto &keys : record::kKindKeys)
    registry.add(make_waived_collective(keys.nccl, keys.kind, false, why));
  for (const auto &keys : record::kKindKeys)
    if (keys.nccl_textbook)
      registry.add(make_waived_collective(keys.nccl_textbook, keys.kind, true, why));
  registry.add(make_waived_collective(record::kNcclAllReduceWithGemm, Kind::all_reduce,
                                      nccl_all_reduce_with_gemm_axes(), why));
}

} // namespace railgauge::collectives
