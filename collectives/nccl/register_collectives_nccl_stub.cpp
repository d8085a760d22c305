#include <string>

#include "collectives/nccl/register_collectives_nccl.h"
#include "collectives/waived_collective.h"
#include "collectives/with_gemm.h"

namespace railgauge::collectives {

void register_collectives_nccl(Registry &registry) {
  const std::string why = "built without NCCL (needs CUDA and NCCL at configure time)";
  for (auto kind : all_kinds())
    registry.add(make_waived_collective("collectives.nccl_" + std::string(to_string(kind)), kind,
                                        false, why));
  for (auto kind : {Kind::all_reduce, Kind::all_gather, Kind::reduce_scatter})
    registry.add(make_waived_collective("collectives.nccl_textbook_" + std::string(to_string(kind)),
                                        kind, true, why));
  registry.add(make_waived_collective("collectives.nccl_all_reduce_with_gemm", Kind::all_reduce,
                                      nccl_all_reduce_with_gemm_axes(), why));
}

} // namespace railgauge::collectives
