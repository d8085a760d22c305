#pragma once
// How the ranks of a run end: together at the end barrier, each run.json saying whether the run
// is whole, and, where a rank was lost, which one and on what node, so that `check` drains that
// node and not the survivors whose points it stopped.
#include <map>
#include <string>

#include "harness/launch.h"
#include "harness/manifest.h"
#include "harness/runner.h"

namespace railgauge {

// Complete only when every planned point has a record: a run that a lost peer stopped early is
// failed, on every rank, so that --resume continues it. The ranks end together: rank 0 serves
// the store, so it stays until every rank is done with it. Throws BackendError when the run is
// not whole (its run.json says why, and names the ranks lost).
void end_together(World &world, Manifest &manifest, const std::map<std::string, int> &counts,
                  const RunPlan &plan, const std::string &stopped_early,
                  const std::string &resume_hint);

// A rank the store saw go is named in run.json (lost_ranks) with its host, where `e` is the
// store's word that one was lost (PeerLost).
void name_lost_ranks(World &world, Manifest &manifest, const BackendError &e);

} // namespace railgauge
