#pragma once
// NCCL communicators for the collectives family (compiled only with NCCL; include only from
// sources compiled then). NCCL library features are derived here once, from
// the version the header declares.
//
// Two ways to build the communicator:
//   - one process drives every local GPU (ncclCommInitAll): a single node without MPI;
//   - one process per GPU, started by srun or mpirun: rank 0's unique id travels through the
//     run's Store, then ncclCommInitRank on each.
// Watchdog: every wait polls the streams and ncclCommGetAsyncError against a deadline; on
// expiry the ranks that do not answer a census through the Store are named, every communicator
// is aborted (ncclCommAbort) and the session is broken: later points fail at once. An
// asynchronous error (a peer gone, a network failure) aborts and breaks the session the same
// way, at once.
#include <chrono>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <cuda_runtime_api.h>
#include <nccl.h>

#include "collectives/dtype.h"
#include "harness/error.h"
#include "harness/store/store.h"

namespace railgauge::collectives {

// ncclCommGetAsyncError and ncclCommAbort: NCCL 2.4; bf16: 2.10; ncclCommInitRankConfig: 2.14;
// ncclCommSplit: 2.18 (split() says so in its error before then).
inline constexpr bool kNcclHasBf16 = NCCL_VERSION_CODE >= NCCL_VERSION(2, 10, 0);

void check_nccl(ncclResult_t rc, const char *call);
ncclDataType_t nccl_type(DType t);
ncclRedOp_t nccl_op(RedOp op);
// "2.28.9" from ncclGetVersion (the library loaded, which may differ from the header).
std::string nccl_version_string();

class NcclSession {
public:
  // One process, every device in `devices`.
  explicit NcclSession(const std::vector<int> &devices);
  // One rank of `world`, on `device`, unique id through `store` under `name`.
  NcclSession(Store &store, const std::string &name, int rank, int world, int device,
              std::chrono::milliseconds timeout);
  ~NcclSession();
  NcclSession(const NcclSession &) = delete;
  NcclSession &operator=(const NcclSession &) = delete;

  // One local communicator per device this process drives.
  std::size_t local_count() const { return comms_.size(); }
  ncclComm_t comm(std::size_t i) const { return comms_[i]; }
  cudaStream_t stream(std::size_t i) const { return streams_[i]; }
  int device(std::size_t i) const { return devices_[i]; }
  // The UUIDs of the devices this process drives, in local order (for their telemetry).
  std::vector<std::string> uuids() const;
  int nranks() const { return nranks_; }
  int rank(std::size_t i) const { return first_rank_ + static_cast<int>(i); }

  // The communicators of one split of the world, one per local device: device i joins colour
  // colours[i] with key keys[i] (ncclCommSplit, every local device in one NCCL group). Split
  // once per name after a store barrier (so a missing rank is named instead of hanging the
  // split), kept for the session, aborted with the world's by the watchdog.
  const std::vector<ncclComm_t> &split(const std::string &name, const std::vector<int> &colours,
                                       const std::vector<int> &keys, double timeout_s);

  // Waits for every local stream under the watchdog (see above).
  void wait(const std::string &what, double timeout_s);
  bool broken() const { return broken_.has_value(); }

  // CUDA-graph mode: captures enqueue() on every local stream into one graph exec per stream,
  // replacing any earlier ones. The session holds them because ncclCommAbort waits until graphs
  // that captured NCCL work are destroyed (NCCL keeps a persistent reference per graph): the
  // watchdog destroys them before it aborts. When enqueue() or the capture throws, every
  // stream's capture is ended and its graph discarded, so the streams stay usable.
  void capture_graphs(const std::function<void()> &enqueue);
  // Launches the captured graphs on their streams; throws std::logic_error when none are held.
  void launch_graphs();
  // Destroys the graph execs (a point's scope ends with this; see GraphsOfPoint).
  void destroy_graphs() noexcept;

private:
  [[noreturn]] void fire(const std::string &what, double timeout_s);
  // After an asynchronous error a communicator must be aborted (NCCL: nothing can be assumed of
  // the work enqueued on it; its kernels may spin for data that never comes): breaks the
  // session as fire() does, without the census.
  void check_async_error(ncclComm_t comm, const std::string &what);
  [[noreturn]] void abort_all(const std::string &msg);
  void make_streams();

  std::vector<int> devices_;
  std::vector<ncclComm_t> comms_;
  std::vector<std::pair<std::string, std::vector<ncclComm_t>>> splits_;
  std::vector<cudaStream_t> streams_;
  std::vector<cudaGraphExec_t> graphs_; // one per local stream while a point replays a graph
  int nranks_ = 1, first_rank_ = 0;
  Store *store_ = nullptr;
  std::string name_;
  int process_rank_ = 0, world_ = 1;
  long waits_ = 0;
  std::optional<std::string> broken_;
};

// A point's captured graphs: destroyed with this scope (declare it before DrainOnFailure, so a
// failed point's queued graph work is drained under the watchdog first).
class GraphsOfPoint {
public:
  explicit GraphsOfPoint(NcclSession &s) : s_(s) {}
  ~GraphsOfPoint() { s_.destroy_graphs(); }
  GraphsOfPoint(const GraphsOfPoint &) = delete;
  GraphsOfPoint &operator=(const GraphsOfPoint &) = delete;

private:
  NcclSession &s_;
};

} // namespace railgauge::collectives
