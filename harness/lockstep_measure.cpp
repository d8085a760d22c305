#include "harness/lockstep_measure.h"

#include <sched.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <exception>
#include <thread>

#include "harness/cpus_given.h"

namespace railgauge {
namespace {

// A group whose barrier waits hot: the calling thread stays runnable (yielding to anything else
// runnable on its core) while a second thread waits on the store, as a rank of a TP step waits in
// a collective that polls (MPI, NCCL). A rank that blocked instead let its core idle between
// calls, and on a KVM guest a core back from idle runs the next call slower: a 512 x 512 x 1024
// sgemm with 3 ms of sleep before each call had a median of 8.2-9.8 ms in 3 of 4 rounds, against
// 5.1-5.5 ms back to back or with the 3 ms spent spinning (docs/calibrate.md). The store's own
// timeout still bounds the wait: the waiting thread returns or throws, and so does this.
class HotWaitGroup final : public LockstepGroup {
public:
  explicit HotWaitGroup(LockstepGroup &inner) : inner_(inner) {}
  int rank() const override { return inner_.rank(); }
  int size() const override { return inner_.size(); }
  void barrier() override {
    std::atomic<bool> done{false};
    std::exception_ptr error;
    std::thread waiter([&] {
      try {
        inner_.barrier();
      } catch (...) {
        error = std::current_exception();
      }
      done.store(true, std::memory_order_release);
    });
    while (!done.load(std::memory_order_acquire))
      sched_yield();
    waiter.join();
    if (error)
      std::rethrow_exception(error);
  }
  std::vector<double> all_gather(const std::vector<double> &mine) override {
    return inner_.all_gather(mine);
  }

private:
  LockstepGroup &inner_;
};

} // namespace

bool lockstep_waits_hot(const Topology &topology) {
  const auto ranks = launcher_ranks_on_this_host();
  // Unknown ranks or cores wait cold: a hot wait on CPUs that others share starves them.
  return ranks && rank_cpus(*ranks, cpus_given(), host_cores(topology)) == RankCpus::own;
}

std::optional<LockstepMeasurement>
measure_in_lockstep(const RunContext &ctx, const std::string &name, const Operation &op) {
  if (ctx.world_size() <= 1 || ctx.store() == nullptr)
    return std::nullopt;
  const auto t0 = std::chrono::steady_clock::now();
  const MeasureSpec &spec = ctx.measure_spec();
  StoreLockstepGroup store_group(*ctx.store(), name, ctx.rank(), ctx.world_size(),
                                 ctx.peer_timeout());
  HotWaitGroup hot_group(store_group);
  LockstepGroup &group = lockstep_waits_hot(ctx.topology())
                             ? static_cast<LockstepGroup &>(hot_group)
                             : static_cast<LockstepGroup &>(store_group);
  HostIterationTimer timer;

  // The first call sizes the loop: every rank takes the slowest rank's time.
  group.barrier();
  const std::vector<double> first_s = group.all_gather({timer.time_one_s(op)});
  const double call_s = std::max(*std::max_element(first_s.begin(), first_s.end()), 1e-9);
  LockstepSpec loop;
  loop.warmup = std::max(0, spec.warmup_runs - 1);
  loop.iterations =
      static_cast<int>(std::clamp(spec.time_budget_s / call_s,
                                  double(std::max(1, spec.min_samples)), double(spec.max_samples)));
  loop.back_to_back_pass = false;

  LockstepMeasurement out;
  out.lockstep = run_lockstep(group, timer, loop, op);
  Measurement &m = out.measurement;
  m.time_s = out.lockstep.time_s;
  m.samples_s = out.lockstep.max_s;
  m.batch = 1;
  m.timer = timer.name();
  m.sampler = "lockstep";
  m.stop_reason = "budget";
  m.elapsed_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return out;
}

} // namespace railgauge
