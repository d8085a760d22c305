// start_mpi() of a build without MPI.
#include "harness/store/mpi_bootstrap.h"

#include "harness/error.h"

namespace railgauge {

std::unique_ptr<MpiRuntime> start_mpi() {
  throw InputError("this railgauge was built without MPI, so the store cannot be set up through "
                   "MPI",
                   "--store mpi",
                   "give every rank --store tcp://RANK0_HOST:PORT (or RAILGAUGE_STORE) and "
                   "RAILGAUGE_RUN_TOKEN, or rebuild with OpenMPI installed");
}

} // namespace railgauge
