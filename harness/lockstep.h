#pragma once
// The multi-rank measurement core (docs/design.md "Benchmarks"): ranks run a fixed number of
// iterations of an operation in lockstep, a barrier before each, and each rank times each of
// its iterations. Afterwards the ranks exchange their times and every rank computes the same
// summary: per iteration the max over ranks (the time the slowest rank needed, which is what a
// synchronous training step waits for), its p50/p99/max, and two ranks, named with the share of
// iterations each was so: the slowest (longest own time most often) and the last to arrive
// (shortest own time most often). In a collective every rank's call returns about when the last
// data is in, so a rank's own time runs from its own start to that common end: the rank that
// started last, the straggler the others waited for, has the shortest time, and the longest
// belongs to a rank that came early and waited. Which of the two is the culprit depends on the
// operation; both are recorded.
//
// Beside it, a second pass runs the same iterations back to back with no barrier in between
// and times the whole loop on the host clock (for a GPU: until the stream has drained). That
// is the figure nccl-tests reports (launch cost included, averaged), kept for comparison.
//
// The group (barrier, all-gather) is an interface so that the same loop runs on MPI, on a
// Store, or with ranks as threads in a test; a group's barrier must time out rather than hang.
// Used by the collectives and RDMA families.
#include <span>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "harness/measure.h"
#include "harness/stats.h"
#include "harness/store/store.h"

namespace railgauge {

// The ranks that step together. rank() is this rank's index in the group, 0..size()-1.
class LockstepGroup {
public:
  virtual ~LockstepGroup() = default;
  virtual int rank() const = 0;
  virtual int size() const = 0;
  // Returns once every rank of the group has called it; throws (a BackendError naming the
  // ranks that did not arrive) rather than hanging.
  virtual void barrier() = 0;
  // Every rank passes the same number of values; returns all ranks' values, rank after rank.
  virtual std::vector<double> all_gather(const std::vector<double> &mine) = 0;
};

// A group over a Store (ranks as threads on a MemoryStore, or processes on a TCP store): each
// barrier and all-gather uses fresh keys under `name`, so the same group can step many times.
class StoreLockstepGroup final : public LockstepGroup {
public:
  StoreLockstepGroup(Store &store, std::string name, int rank, int size, Milliseconds timeout)
      : store_(store), name_(std::move(name)), rank_(rank), size_(size), timeout_(timeout) {}
  int rank() const override { return rank_; }
  int size() const override { return size_; }
  void barrier() override;
  std::vector<double> all_gather(const std::vector<double> &mine) override;

private:
  Store &store_;
  std::string name_;
  int rank_, size_;
  Milliseconds timeout_;
  long step_ = 0;
};

// Times one iteration of an operation on this rank, and a back-to-back loop of them.
class IterationTimer {
public:
  virtual ~IterationTimer() = default;
  virtual std::string_view name() const = 0;
  virtual double time_one_s(const Operation &op) = 0;
  // Seconds for `n` calls issued back to back, measured on the host until they have finished.
  virtual double time_back_to_back_s(const Operation &op, int n) = 0;
};

// std::chrono::steady_clock around each call.
class HostIterationTimer final : public IterationTimer {
public:
  std::string_view name() const override { return "host_steady_clock"; }
  double time_one_s(const Operation &op) override;
  double time_back_to_back_s(const Operation &op, int n) override;
};

struct LockstepSpec {
  int warmup = 2;      // untimed iterations, each after a barrier
  int iterations = 20; // timed iterations, each after a barrier
  bool back_to_back_pass = true;
};

struct LockstepResult {
  Summary time_s;     // per iteration, the max over ranks
  Summary own_time_s; // this rank's own iterations
  int ranks = 0;
  int slowest_rank = 0;      // a name from `rank_names` (world rank), slowest most often
  double slowest_share = 0;  // fraction of iterations in which it was the slowest
  int last_arrival_rank = 0; // shortest own time most often: the one the others waited for
  double last_arrival_share = 0;
  double back_to_back_s = -1; // per call, host clock, max over ranks; -1 when not run
  std::vector<double> max_s;  // per iteration, the max over ranks
  std::string timer;

  // {"time_s": summary, "own_time_s": summary, "slowest_rank": r, "slowest_rank_share": f,
  //  "last_arrival_rank": r, "last_arrival_rank_share": f,
  //  "wall_time_s": back-to-back per call, "iterations": n, "ranks": n, "timer": name,
  //  "sampler": "lockstep"}
  nlohmann::json to_json() const;
};

// The pure part, on times already gathered: `by_rank[r][i]` is rank r's iteration i. Names
// are what the slowest rank is reported as (world ranks of a group); empty means 0..n-1. Ties
// go to the lowest rank. Throws std::invalid_argument on ragged or empty input.
LockstepResult summarize_lockstep(const std::vector<std::vector<double>> &by_rank,
                                  std::span<const int> rank_names, int own_rank);

// Runs the loop described above on every rank of `group` (all must call it with the same spec).
LockstepResult run_lockstep(LockstepGroup &group, IterationTimer &timer, const LockstepSpec &spec,
                            const Operation &op, std::span<const int> rank_names = {});

} // namespace railgauge
