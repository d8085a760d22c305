#include "cli/ranks_end.h"

#include <cstdio>
#include <cstdlib>

#include <fmt/format.h>

#include "harness/error.h"
#include "harness/interrupt_watch.h"
#include "harness/run_failure.h"
#include "harness/run_fields.h"
#include "harness/watchdog.h"

namespace railgauge {

// Named with its host, so that `check` drains its node and not this one for points that never
// ran here (analysis/check/run_completeness.h).
void name_lost_ranks(World &world, Manifest &manifest, const BackendError &e) {
  if (dynamic_cast<const PeerLost *>(&e))
    if (auto lost = world.lost_ranks(); !lost.empty())
      manifest.data()[run_field::kLostRanks] = std::move(lost);
}

void end_together(World &world, Manifest &manifest, const std::map<std::string, int> &counts,
                  const RunPlan &plan, const std::string &stopped_early,
                  const std::string &resume_hint) {
  auto cut_short = points_never_run(counts, plan.point_count(), stopped_early);
  if (cut_short) {
    mark_run_failed(manifest, *cut_short, counts);
    world.say_stopped_early(*cut_short);
  } else {
    manifest.finish(run_field::kComplete, counts);
  }
  // Slurm's time limit signals every rank: one that has finished its points and waits here for
  // the others ends as an interrupted run does (exit 5), its run.json as it is, rather than by
  // the signal's default action with nothing said.
  const InterruptWatch at_the_end([&](int signo) {
    std::fprintf(stderr, "\nrailgauge: %s while waiting for the other ranks at the end: %s\n  %s\n",
                 signal_name(signo),
                 cut_short ? "run.json says why this rank stopped early"
                           : "this rank's points are all recorded (run.json complete)",
                 resume_hint.c_str());
    std::fflush(nullptr);
    std::_Exit(kWatchdogExitCode);
  });
  try {
    world.barrier("end");
    // A rank whose own points all ran is still part of a run another rank cut short.
    if (!cut_short)
      if (const auto elsewhere = world.stopped_early_elsewhere())
        cut_short = fmt::format("another rank stopped early, {}", *elsewhere);
  } catch (const BackendError &e) {
    name_lost_ranks(world, manifest, e);
    mark_run_failed(manifest, cut_short ? *cut_short + "; then " + e.what() : e.what(), counts);
    throw BackendError(fmt::format("{}\n  {}", e.what(), resume_hint));
  }
  if (cut_short) {
    mark_run_failed(manifest, *cut_short, counts);
    throw BackendError(fmt::format("{}\n  {}", *cut_short, resume_hint));
  }
}

} // namespace railgauge
