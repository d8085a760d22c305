#include <string>

#include "collectives/mpi/register_collectives_mpi.h"
#include "collectives/waived_collective.h"
#include "collectives/with_gemm.h"
#include "records/collective_record.h"

namespace railgauge::collectives {

void register_collectives_mpi(Registry &registry) {
  const std::string why = "built without MPI (install libopenmpi-dev and reconfigure)";
  for (const auto &keys : record::kKindKeys)
    registry.add(make_waived_collective(keys.mpi, keys.kind, false, why));
  for (const auto &keys : record::kKindKeys)
    if (keys.mpi_textbook)
      registry.add(make_waived_collective(keys.mpi_textbook, keys.kind, true, why));
  registry.add(make_waived_collective(record::kMpiAllReduceWithGemm, Kind::all_reduce,
                                      mpi_all_reduce_with_gemm_axes(), why));
}

} // namespace railgauge::collectives
