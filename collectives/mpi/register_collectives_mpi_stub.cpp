#include <string>

#include "collectives/mpi/register_collectives_mpi.h"
#include "collectives/waived_collective.h"
#include "collectives/with_gemm.h"

namespace railgauge::collectives {

void register_collectives_mpi(Registry &registry) {
  const std::string why = "built without MPI (install libopenmpi-dev and reconfigure)";
  for (auto kind : all_kinds())
    registry.add(make_waived_collective("collectives.mpi_" + std::string(to_string(kind)), kind,
                                        false, why));
  for (auto kind : {Kind::all_reduce, Kind::all_gather, Kind::reduce_scatter})
    registry.add(make_waived_collective("collectives.mpi_textbook_" + std::string(to_string(kind)),
                                        kind, true, why));
  registry.add(make_waived_collective("collectives.mpi_all_reduce_with_gemm", Kind::all_reduce,
                                      mpi_all_reduce_with_gemm_axes(), why));
}

} // namespace railgauge::collectives
