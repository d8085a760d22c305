#pragma once
// What the NCCL benchmarks share (compiled only with NCCL): the session a benchmark opens on its
// first point, the communicators of a point's groups, CUDA-event timing per iteration, the
// lockstep group over local GPUs and other processes, and the record fields that say which NCCL
// ran and what the user forced.
#include <exception>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "collectives/collective_point.h"
#include "collectives/kind_benchmark.h"
#include "collectives/nccl/nccl_session.h"
#include "harness/benchmark.h"
#include "harness/cuda/resources.h"
#include "harness/cuda/stream_gates.h"
#include "harness/lockstep.h"

namespace railgauge::collectives {

// A benchmark's session, opened by its first point, or why opening it failed.
struct NcclSessionSlot {
  std::unique_ptr<NcclSession> session;
  std::optional<std::string> open_failed;
  // The host of every world rank (one entry per local GPU for a single process): how many hosts
  // a group spans, params.group_hosts, which the profiles select single- and multi-node floors by.
  std::vector<std::string> rank_hosts;
};

// The session of a benchmark, opened by its first point: one rank per process under srun or
// mpirun (unique id through the run's store, under `name`), else one process driving every
// local GPU. A failed open is final for the benchmark: later points fail with its reason at
// once. Opening again would reuse the store's keys (the unique id, the completed init barrier),
// so ranks could read different ids and block in ncclCommInitRank, out of any watchdog's reach.
NcclSession &open_nccl_session(NcclSessionSlot &slot, const RunContext &ctx,
                               const std::string &name, double timeout_s);

// An NCCL benchmark of one collective kind: its session, opened under its key by its first
// point (open_nccl_session).
class NcclKindBenchmark : public KindBenchmark {
protected:
  using KindBenchmark::KindBenchmark;
  NcclSession &open_session(const RunContext &ctx, double timeout_s) {
    return open_nccl_session(session_, ctx, std::string(key()), timeout_s);
  }

  NcclSessionSlot session_;
};

// Why an NCCL point cannot run here (no GPU, concurrent groups where the benchmark does not run
// them, no store for a multi-rank run, a bad split), or nullopt.
std::optional<std::string> nccl_point_problem(const RunContext &ctx, const CollectivePoint &p,
                                              bool runs_concurrent = false);

// Where one local device's collective runs: the world, or its group of the point's group type.
struct LocalGroup {
  ncclComm_t comm = nullptr;
  int rank = 0, size = 1, index = 0;
  std::string type = "world";
  int hosts = 0; // distinct hosts of the group's ranks (0: not known)
};
// Each local device's group of every group type of the point, one vector per type in the
// split's order: the world alone, one axis, or every axis for group_type=concurrent (each
// type's split communicators). `rank_hosts`: NcclSessionSlot::rank_hosts, for
// LocalGroup::hosts.
std::vector<std::vector<LocalGroup>>
local_groups_by_type(NcclSession &s, const CollectivePoint &p,
                     const std::vector<std::string> &rank_hosts);
// The one group type of a point that is not concurrent.
std::vector<LocalGroup> local_groups(NcclSession &s, const CollectivePoint &p,
                                     const std::vector<std::string> &rank_hosts);

// Every local stream of a session held while the host enqueues one iteration (StreamGates):
// the events recorded behind the hold time the GPUs' work, not the host's launch of every
// GPU's part of a group, nor (one process per GPU) the skew of the processes' enqueues.
class SessionGates {
public:
  explicit SessionGates(NcclSession &s);
  [[nodiscard]] gpu::StreamGates::Held hold() { return gates_.hold(streams_, kTimeoutS); }
  int timed_out() { return gates_.timed_out(); }

private:
  // Seconds a gate waits for the host's enqueue, which takes microseconds; past it, that
  // iteration times the launches too, and the record says how often (add_gate_timeouts).
  static constexpr double kTimeoutS = 10;
  std::vector<cudaStream_t> streams_;
  gpu::StreamGates gates_;
};

// metrics.gate_timeouts, and a note when a gate gave up: those iterations timed the launches.
void add_gate_timeouts(nlohmann::json &metrics, int timed_out);

// CUDA events around each iteration's enqueue on every local stream, held by the session's
// gates until the enqueue ends, then the watchdog wait; an iteration's time is the slowest local
// GPU's, and each GPU's time is kept so that a single process driving every GPU can name the
// slowest one. The back-to-back pass (wall_time_s) is not gated: it times what a training step
// sees, host launches included.
class NcclIterationTimer final : public IterationTimer {
public:
  NcclIterationTimer(NcclSession &s, std::string what, double timeout_s);
  std::string_view name() const override { return "cuda_event"; }
  double time_one_s(const Operation &op) override;
  double time_back_to_back_s(const Operation &op, int n) override;
  const std::vector<std::vector<double>> &per_gpu() const { return per_gpu_; }
  void drain() { s_.wait(what_, timeout_s_); }
  SessionGates &gates() { return gates_; }

private:
  NcclSession &s_;
  std::string what_;
  double timeout_s_;
  SessionGates gates_;
  std::vector<gpu::Event> start_, stop_;
  std::vector<std::vector<double>> per_gpu_;
};

// The lockstep group of an NCCL point: the local GPUs (a barrier drains their streams) and,
// across processes, the run's store (after draining).
class NcclLockstepGroup final : public LockstepGroup {
public:
  NcclLockstepGroup(const RunContext &ctx, NcclIterationTimer &timer, const std::string &name,
                    double timeout_s);
  int rank() const override { return across_ ? across_->rank() : 0; }
  int size() const override { return across_ ? across_->size() : 1; }
  void barrier() override;
  std::vector<double> all_gather(const std::vector<double> &mine) override;
  // One process driving several GPUs: the slowest GPU of the last `iterations`, from the
  // per-GPU event times, into `result` (across processes, run_lockstep named the rank).
  void name_slowest_gpu(LockstepResult &result, int iterations) const;

private:
  NcclIterationTimer &timer_;
  std::unique_ptr<StoreLockstepGroup> across_;
};

// Declared after a point's device buffers: when the point leaves by an exception, waits for
// the session's streams under the watchdog before the buffers are freed (cudaFree would wait,
// without a deadline, for work stuck on a peer); on expiry the watchdog aborts the
// communicators, which ends that work. The point's own exception is the one that propagates.
class DrainOnFailure {
public:
  DrainOnFailure(NcclSession &s, double timeout_s)
      : s_(s), timeout_s_(timeout_s), exceptions_(std::uncaught_exceptions()) {}
  ~DrainOnFailure();
  DrainOnFailure(const DrainOnFailure &) = delete;
  DrainOnFailure &operator=(const DrainOnFailure &) = delete;

private:
  NcclSession &s_;
  double timeout_s_;
  int exceptions_;
};

// Copies host bytes to device i's memory in the order of its stream, so that the NCCL work
// enqueued next reads them (a cudaMemcpy from pageable memory may return before its DMA ends,
// and the session's streams do not wait for the legacy stream).
void upload(NcclSession &s, std::size_t i, void *dst, const void *src, std::size_t bytes);

// nccl_version and the NCCL_ALGO, NCCL_PROTO, NCCL_NVLS_ENABLE and NCCL_COLLNET_ENABLE the
// user set (env_<name>), added to `metrics`.
void add_nccl_identity(nlohmann::json &metrics);

} // namespace railgauge::collectives
