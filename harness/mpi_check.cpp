#include "harness/mpi_check.h"

#include <fmt/format.h>
// The C API only: OpenMPI's and MPICH's mpi.h otherwise pull in their C++ bindings, which live in
// a library that is not linked.
#define OMPI_SKIP_MPICXX 1
#define MPICH_SKIP_MPICXX 1
#include <mpi.h>

#include "harness/error.h"

namespace railgauge {

void check_mpi(int rc, const char *call) {
  if (rc == MPI_SUCCESS)
    return;
  char text[MPI_MAX_ERROR_STRING] = {};
  int len = 0;
  MPI_Error_string(rc, text, &len);
  throw BackendError(fmt::format("{} failed: {}", call, text));
}

} // namespace railgauge
