#pragma once
// What the TCP store needs from MPI when mpirun started the ranks: MPI itself (initialised for
// the life of the object, unless someone else did it first) and a broadcast of rank 0's store
// address and run token to every rank. Everything after that goes through the TCP store: MPI
// carries a few hundred bytes once.
//
// Built without MPI, start_mpi() throws InputError naming the alternative (--store tcp://).
#include <memory>
#include <string>

namespace railgauge {

class MpiRuntime {
public:
  virtual ~MpiRuntime() = default;
  virtual int rank() const = 0;
  virtual int size() const = 0;
  // Every rank gets rank 0's `text` (ignored on the other ranks).
  virtual std::string broadcast_from_root(const std::string &text) = 0;
  // True on every rank when `value` is true on every rank.
  virtual bool all(bool value) = 0;
};

std::unique_ptr<MpiRuntime> start_mpi();

} // namespace railgauge
