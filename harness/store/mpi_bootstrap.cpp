#include "harness/store/mpi_bootstrap.h"

#include <cstdint>

#include <fmt/format.h>
// The C API only: OpenMPI's and MPICH's mpi.h otherwise pull in their C++ bindings, which live in
// a library that is not linked.
#define OMPI_SKIP_MPICXX 1
#define MPICH_SKIP_MPICXX 1
#include <mpi.h>

#include "harness/error.h"
#include "harness/mpi_check.h"

namespace railgauge {
namespace {

class OpenMpiRuntime final : public MpiRuntime {
public:
  OpenMpiRuntime() {
    int initialized = 0;
    MPI_Initialized(&initialized);
    if (!initialized) {
      // Several threads of a rank may call MPI in multi-threaded benchmarks.
      int provided = 0;
      check_mpi(MPI_Init_thread(nullptr, nullptr, MPI_THREAD_MULTIPLE, &provided),
                "MPI_Init_thread");
      owner_ = true;
    }
    check_mpi(MPI_Comm_rank(MPI_COMM_WORLD, &rank_), "MPI_Comm_rank");
    check_mpi(MPI_Comm_size(MPI_COMM_WORLD, &size_), "MPI_Comm_size");
  }
  ~OpenMpiRuntime() override {
    int finalized = 0;
    MPI_Finalized(&finalized);
    if (owner_ && !finalized)
      MPI_Finalize();
  }
  int rank() const override { return rank_; }
  int size() const override { return size_; }

  std::string broadcast_from_root(const std::string &text) override {
    std::uint64_t length = rank_ == 0 ? text.size() : 0;
    check_mpi(MPI_Bcast(&length, 1, MPI_UINT64_T, 0, MPI_COMM_WORLD), "MPI_Bcast");
    if (length > (1u << 20))
      throw BackendError(
          fmt::format("MPI_Bcast: {} bytes from rank 0 is not a store address", length));
    std::string out = rank_ == 0 ? text : std::string(length, '\0');
    check_mpi(MPI_Bcast(out.data(), static_cast<int>(length), MPI_CHAR, 0, MPI_COMM_WORLD),
              "MPI_Bcast");
    return out;
  }

  bool all(bool value) override {
    int mine = value ? 1 : 0, every = 0;
    check_mpi(MPI_Allreduce(&mine, &every, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD), "MPI_Allreduce");
    return every == 1;
  }

private:
  bool owner_ = false;
  int rank_ = 0, size_ = 1;
};

} // namespace

std::unique_ptr<MpiRuntime> start_mpi() { return std::make_unique<OpenMpiRuntime>(); }

} // namespace railgauge
