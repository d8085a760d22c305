#include "collectives/register_collectives.h"

#include "collectives/mpi/register_collectives_mpi.h"
#include "collectives/nccl/register_collectives_nccl.h"

namespace railgauge {

void register_collectives(Registry &registry) {
  collectives::register_collectives_mpi(registry);
  collectives::register_collectives_nccl(registry);
}

} // namespace railgauge
