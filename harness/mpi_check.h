#pragma once
// MPI's return codes as exceptions, for the two users of MPI: the store's bootstrap (harness/store)
// and the MPI collectives. Defined only in builds with MPI (target railgauge_mpi_check).
namespace railgauge {

// Throws BackendError naming the call and MPI's error string unless rc is MPI_SUCCESS.
void check_mpi(int rc, const char *call);

} // namespace railgauge
