#pragma once
// A point measured with every rank of a multi-rank launch in lockstep (lockstep.h): a barrier
// before each call, and per call the slowest rank's time. Measured apart instead, each
// rank under its own stopping rule, ranks drift apart; on shared cores (t ranks on fewer cores)
// each then finds a core free that a tensor-parallel step, where all ranks compute at once and the
// collective waits for the last, would share (docs/calibrate.md "A block predicted").
// Each rank's time runs from its own start: with more ranks than cores, a rank the OS runs late
// starts late and its wait is not counted (docs/calibrate.md says what that does to t > cores).
// Where the ranks on this host have cores of their own, a rank waits for the others hot (its
// thread stays runnable), as in a collective that polls: a core left idle between calls runs the
// next call slower on a VM. Elsewhere it waits blocked and leaves its core to the ranks computing.
#include <optional>
#include <string>

#include "harness/lockstep.h"
#include "harness/measure.h"
#include "harness/run_context.h"

namespace railgauge {

struct LockstepMeasurement {
  // time_s and samples_s per call: the max over ranks (run_lockstep()). sampler "lockstep",
  // stop "budget".
  Measurement measurement;
  LockstepResult lockstep;
};

// For a launch of more than one rank with a store: every rank must call it for the same point,
// with the same `name` (unique per point). One call on every rank sizes the loop: the ranks take
// the slowest rank's time, so they agree on time_budget_s / that calls, within min_samples and
// max_samples of the context's MeasureSpec, after warmup_runs untimed calls. nullopt for a single
// rank (measure with ctx.measure()). Throws BackendError naming the rank that did not arrive.
std::optional<LockstepMeasurement>
measure_in_lockstep(const RunContext &ctx, const std::string &name, const Operation &op);

// Whether the ranks on this host have cores of their own, as calibrate counts them (CoreShare):
// the launcher's count of ranks here times the CPUs each may use (a CPU backend's BLAS threads)
// within the physical cores hwloc shows this job. False where no launcher gives the count.
bool lockstep_waits_hot(const Topology &topology);

} // namespace railgauge
