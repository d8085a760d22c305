#pragma once
// MPI for the collectives family: initialised once per process by the first MPI benchmark
// point that runs (MPI_Init_thread, MPI_THREAD_FUNNELED; not at all when someone else has
// initialised it already, or when no MPI launcher started this process), finalised when the
// family is destroyed. Not a global: register_collectives owns it and hands it to each
// benchmark.
//
// Watchdog: every MPI call the family makes is nonblocking and waited for here, in an MPI_Test
// loop against a deadline. When the deadline passes, this rank tells every other rank on a
// side communicator (a census) and listens for a grace period; a rank that is waiting in the
// same loop hears it, stops waiting and answers. The ranks that never answer are the ones that
// are dead, hung or stuck elsewhere: they are named in the CollectiveTimeout thrown, and the
// session is broken: later calls fail at once, and at the end the job is aborted (MPI_Abort)
// instead of finalised, since MPI_Finalize would wait for the dead rank. Before aborting, the
// surviving ranks tell each other they are done (bounded by the grace period), so that one
// rank's abort does not kill another before it has written its records.
//
// Calls that MPI only offers blocking are guarded too. Before the session's first collective on
// the world (MPI_Comm_dup waits until every rank makes it), every rank checks in with rank 0
// (point to point, on MPI_COMM_WORLD; rank 0 says when it is there, so its own absence is named
// after one timeout), which answers each with the ranks that did not check in
// within the run's --store-timeout (ranks may reach their first MPI point at different times): a
// rank that died before its first MPI point, or runs something else, is named on every rank that
// came, and the session is broken. MPI_Comm_split is preceded by a guarded barrier.
#include <chrono>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <mpi.h>

#include "collectives/dtype.h"
#include "harness/error.h"
#include "harness/mpi_check.h"

namespace railgauge::collectives {

class CollectiveTimeout : public BackendError {
public:
  CollectiveTimeout(std::string what, std::vector<int> missing)
      : BackendError(std::move(what)), missing_(std::move(missing)) {}
  const std::vector<int> &missing_ranks() const { return missing_; }

private:
  std::vector<int> missing_;
};

// True when an MPI launcher (mpirun, srun with PMI/PMIx) started this process.
bool launched_by_mpi_launcher();

class MpiSession {
public:
  // `arrival_timeout_s`: how long the ranks wait for each other to check in (see above).
  explicit MpiSession(double arrival_timeout_s);
  ~MpiSession();
  MpiSession(const MpiSession &) = delete;
  MpiSession &operator=(const MpiSession &) = delete;

  int rank() const { return rank_; }
  int size() const { return size_; }
  // A duplicate of MPI_COMM_WORLD with MPI_ERRORS_RETURN, for the family's traffic.
  MPI_Comm world() const { return world_; }
  std::string library_version() const;

  // Waits for `request` under the watchdog; throws CollectiveTimeout (see above).
  void wait(MPI_Request &request, const std::string &what, double timeout_s);
  void wait_all(std::vector<MPI_Request> &requests, const std::string &what, double timeout_s);
  // Waits for every set of requests under one watchdog, and returns when each set completed, in
  // seconds after `since` (as seen by this rank's polling: within a poll of the completion).
  std::vector<double> wait_each(std::vector<std::vector<MPI_Request>> &sets,
                                std::chrono::steady_clock::time_point since,
                                const std::string &what, double timeout_s);
  // Guarded world barrier and all-gather of doubles, for the lockstep loop.
  void barrier(MPI_Comm comm, double timeout_s);
  std::vector<double> all_gather(MPI_Comm comm, const std::vector<double> &mine, double timeout_s);
  long long all_reduce_sum(MPI_Comm comm, long long mine, double timeout_s);

  // Every rank's host (MPI_Get_processor_name), by world rank: gathered once, under the watchdog.
  const std::vector<std::string> &hosts(double timeout_s);
  // How many distinct hosts the world ranks `ranks` run on; every rank when `ranks` is empty.
  int host_count(const std::vector<int> &ranks, double timeout_s);

  bool broken() const { return broken_.has_value(); }
  // Throws CollectiveTimeout naming the ranks that never checked in, the first time; after that
  // a BackendError saying the session is unusable. Does nothing when every rank arrived.
  void throw_if_broken();

  // MPI_Comm_split of world() by colour and key, made once per `name` (collective: every rank
  // calls it with the same name at the same point, after a barrier guarded by timeout_s) and
  // freed with the session.
  MPI_Comm split(const std::string &name, int colour, int key, double timeout_s);

  // The MPI datatype of elements of `type` (16-bit types travel as MPI_UINT16_T) and the
  // reduction operation (a user-defined, commutative op for bf16 and fp16, which MPI-3 lacks).
  MPI_Datatype datatype(DType type) const;
  MPI_Op op(DType type, RedOp op) const;

private:
  [[noreturn]] void fire(const std::string &what, double timeout_s, bool heard_census);
  bool census_pending();
  // The ranks that did not check in with rank 0 within timeout_s (see above); empty when all did.
  std::vector<int> arrival_census(double timeout_s);

  bool initialised_here_ = false;
  int rank_ = 0, size_ = 1;
  MPI_Comm world_ = MPI_COMM_NULL;
  MPI_Comm census_ = MPI_COMM_NULL;
  bool yield_ = false; // more ranks than cores here: yield while polling
  std::optional<std::string> broken_;
  std::vector<int> survivors_;     // ranks that answered the census, this one included
  std::vector<int> never_arrived_; // ranks missing at the arrival census, reported once
  std::vector<std::string> hosts_; // by world rank, once gathered
  // The arrival census's message buffers, which requests still pending at a timeout may fill.
  std::vector<int> arrival_reply_, arrival_from_;
  int arrival_marker_ = 0, arrival_here_ = 0, census_marker_ = 0;
  bool arrival_reported_ = false;
  std::vector<std::pair<std::string, MPI_Comm>> splits_;
  std::vector<MPI_Op> half_ops_; // [bf16 sum, prod, max, min, fp16 sum, prod, max, min]
};

// One MpiSession per family, created by the first point that needs it.
class MpiFamily {
public:
  // World size without initialising MPI: 1 when no MPI launcher started this process.
  int world_size_hint() const;
  // The session, created by the first call (ranks wait up to arrival_timeout_s, the run's
  // --store-timeout, for each other to arrive);
  // throws as MpiSession::throw_if_broken() when a rank never did.
  MpiSession &session(double arrival_timeout_s);

private:
  std::unique_ptr<MpiSession> session_;
};

} // namespace railgauge::collectives
