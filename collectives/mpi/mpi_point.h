#pragma once
// What the MPI collectives benchmarks share: the communicators a point runs on (the world, one
// group of a split, or one group of every axis at once), host buffers laid out as the library
// call wants them, seeded inputs, the expected outputs, and the lockstep group over MPI.
#include <cstddef>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include <mpi.h>

#include "collectives/collective_point.h"
#include "collectives/kind_benchmark.h"
#include "collectives/mpi/mpi_session.h"

namespace railgauge::collectives {

// One communicator this rank runs the point on.
struct MpiGroup {
  MPI_Comm comm = MPI_COMM_NULL;
  std::string type = "world"; // group axis name, or "world"
  int index = 0;
  int rank = 0, size = 1;
  int hosts = 1; // the hosts its members run on: 1 for a group inside one node
};

// The groups of point `p` this rank is in: one, or one per axis for "concurrent". Throws
// InputError for a bad group spec or type.
std::vector<MpiGroup> mpi_groups(MpiSession &s, const CollectivePoint &p);

// The buffers of one group's collective and the library call on them.
class MpiBuffers {
public:
  MpiBuffers(const CollectivePoint &p, const MpiGroup &g);
  // Seeded inputs (and a garbage-filled output, so an output never written is caught).
  void fill(std::uint64_t seed);
  // Starts the library's nonblocking collective, appending its requests (the caller waits).
  void start(MpiSession &s, std::vector<MPI_Request> &requests);
  // Compares this rank's output with the expected values.
  CheckResult check(std::uint64_t seed) const;
  // The output buffer, for the test hook that corrupts it.
  std::byte *output();
  std::size_t output_bytes() const;

private:
  CollectivePoint p_;
  MpiGroup g_;
  Counts c_;
  std::size_t elt_;
  std::vector<std::byte> send_, recv_;
};

class MpiLockstepGroup final : public LockstepGroup {
public:
  MpiLockstepGroup(MpiSession &s, MPI_Comm comm, double timeout_s);
  int rank() const override { return rank_; }
  int size() const override { return size_; }
  void barrier() override { s_.barrier(comm_, timeout_s_); }
  std::vector<double> all_gather(const std::vector<double> &mine) override {
    return s_.all_gather(comm_, mine, timeout_s_);
  }

private:
  MpiSession &s_;
  MPI_Comm comm_;
  double timeout_s_;
  int rank_ = 0, size_ = 1;
};

// Times `op` in lockstep on `world` (the whole MPI world) for p's warmup and iterations, with the
// host clock, each rank named by its world rank.
LockstepResult run_world_lockstep(MpiLockstepGroup &world, const CollectivePoint &p,
                                  const Operation &op);

// Why point `p` cannot run on `world` ranks once the benchmark's own checks pass: a group type
// named with no `groups` split, or the point's problem at its group size; nullopt when none.
std::optional<std::string> mpi_split_problem(const CollectivePoint &p, int world);

// A point's data-check problems from the wrong elements summed over all ranks and this rank's
// own check: none, or "[what: ]N elements wrong over all ranks; this rank: ...".
std::vector<std::string> mpi_wrong_problems(long long wrong_all, const CheckResult &mine,
                                            std::string_view what = {});

// Test hooks of the MPI benchmarks: corrupt the output before the check, or act (sleep, die)
// before a given timed iteration.
struct MpiTestHooks {
  std::function<void(std::byte *data, std::size_t bytes)> before_check;
  std::function<void(int iteration)> before_iteration;
};

// An MPI benchmark of one collective kind: the family whose session it runs on and its hooks.
class MpiKindBenchmark : public KindBenchmark {
protected:
  MpiKindBenchmark(Kind kind, std::string key, std::string description,
                   std::shared_ptr<MpiFamily> family, std::shared_ptr<MpiTestHooks> hooks)
      : KindBenchmark(kind, std::move(key), std::move(description)), family_(std::move(family)),
        hooks_(std::move(hooks)) {}

  std::shared_ptr<MpiFamily> family_;
  std::shared_ptr<MpiTestHooks> hooks_;
};

} // namespace railgauge::collectives
