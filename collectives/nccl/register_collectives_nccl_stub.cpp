#include <string>

#include "collectives/nccl/register_collectives_nccl.h"
#include "collectives/waived_collective.h"

namespace railgauge::collectives {

void register_collectives_nccl(Registry &registry) {
  for (auto kind : all_kinds())
    registry.add(
        make_waived_collective("collectives.nccl_" + std::string(to_string(kind)), kind, false,
                               "built without NCCL (needs CUDA and NCCL at configure time)"));
}

} // namespace railgauge::collectives
