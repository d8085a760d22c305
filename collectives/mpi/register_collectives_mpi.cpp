#include "collectives/mpi/register_collectives_mpi.h"
#include "records/collective_record.h"

#include "collectives/mpi/mpi_collective.h"

namespace railgauge::collectives {

void register_collectives_mpi(Registry &registry) {
  // One MPI session for the family, created by the first point that runs; no hooks.
  auto family = std::make_shared<MpiFamily>();
  auto hooks = std::make_shared<MpiTestHooks>();
  for (auto kind : all_kinds())
    registry.add(make_mpi_collective(kind, family, hooks));
  for (auto kind : all_kinds())
    if (record::keys_of(kind).mpi_textbook)
      registry.add(make_mpi_textbook(kind, family, hooks));
  registry.add(make_mpi_all_reduce_with_gemm(family, hooks));
}

} // namespace railgauge::collectives
