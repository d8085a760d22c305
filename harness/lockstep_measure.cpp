#include "harness/lockstep_measure.h"

#include <algorithm>
#include <chrono>

namespace railgauge {

std::optional<LockstepMeasurement>
measure_in_lockstep(const RunContext &ctx, const std::string &name, const Operation &op) {
  if (ctx.world_size() <= 1 || ctx.store() == nullptr)
    return std::nullopt;
  const auto t0 = std::chrono::steady_clock::now();
  const MeasureSpec &spec = ctx.measure_spec();
  StoreLockstepGroup group(*ctx.store(), name, ctx.rank(), ctx.world_size(), ctx.peer_timeout());
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
