#pragma once
// What a newer run of a host measured again of an older one: `check --latest-per-host`
// (run_set.h) and the fleet history (history/newest_runs.h) judge an older run beside its newer
// ones unless they measured every point it measured. A retest of one benchmark (`--filter`) once
// superseded the whole burn-in before it: the node whose HBM pattern test had failed passed on a
// GEMM retest that never ran the pattern again.
#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "harness/record.h"

namespace railgauge::analysis {

// The points a run measured, as a digest of each point's identity (its key and planned axes, its
// less those that say only how long or how often it ran: duration_s, rounds, repetitions,
// iterations, warmup, timeout_s) -> how many parts measured it: one a record, one a GPU for a
// point that ran on every GPU at once (a burn-in phase's record of eight GPUs counts eight), the
// most of any one effort (a retest of 4 GPUs at two durations measured 4). A waived record measured
// nothing and is not counted: a retest that could not run a point has not measured it again. A GPU
// replaced under RMA has another UUID, so the parts are counted, not named: a burn-in after the
// repair measures again what the failed one did, while a retest on one GPU does not cover eight.
// Nor is an error record counted: the point broke (a lost peer or a signal may have cut it, and
// check then excuses it).
using PointCounts = std::map<std::uint64_t, int>;

// A record's point as measured_points counts it (nothing for a record without axes).
std::optional<std::uint64_t> point_of(const Record &r);

// Nothing when a record it would count has no axes (a run of an older railgauge, whose params
// hold values derived while running): such a run's points are not known.
std::optional<PointCounts> measured_points(const std::vector<Record> &records);

// `from` added to `into`: the ranks of one run on one host together.
void add_points(PointCounts &into, const PointCounts &from);

// As the fleet history stores them (runs.points): "<16 hex digits>:<count>" a point, separated by
// ' ', ascending; and read back (nothing when the text is not that).
std::string points_text(const PointCounts &points);
std::optional<PointCounts> parse_points_text(std::string_view text);

// One run of a host under one superseding key (host, suite, world, ranks on the host, machine),
// as the choice of the runs to judge sees it.
struct RunToSupersede {
  PointCounts points = {};
  // The points are not known (a history row stored before they were): such a run is superseded
  // by any newer run and supersedes every older one, as before they were stored.
  bool points_unknown = false;
  // It did all its run.json said it would (no status but complete, no fewer records than its
  // points_planned, counts that agree): else its planned points that never ran are covered only
  // by a newer whole run of the same plan.
  bool whole = true;
  std::string plan;      // run.json's plan.digest ("": none, and any whole run repeats it)
  long long planned = 0; // run.json's points_planned, its ranks' together (0: not said)
  bool stopped = false;  // a signal stopped it: it supersedes nothing (run_set.h)
};

// What becomes of one run: judged or not, and for an older run still judged, why.
struct SupersedeOutcome {
  bool judged = true;
  int points_not_measured_again = 0; // of `points_total`, by the newer runs not stopped
  int points_total = 0;
  bool plan_unfinished = false; // not whole, and no newer whole run of its plan
  int newer_stopped = 0;        // newer runs a signal stopped, which measured nothing again
  // The points the newer runs measured (its own as many times as it did): of a run still judged,
  // its records of these are not judged, a point that broke or was waived there included.
  std::set<std::uint64_t> measured_again;
};

// `runs` newest first (the first is always judged): an older run is superseded when the newer
// runs that were not stopped measured each of its points at least as many times as it did (the
// most of any one of them: two retests of GPU 3 do not cover GPUs 3 and 5), and, if it did not
// finish, when a newer whole run of its plan did, or one that planned as many points (the same
// burn-in at another budget plans other durations, so another digest), or any newer whole run
// where its run.json names neither (an older railgauge's).
std::vector<SupersedeOutcome> supersede(const std::vector<RunToSupersede> &runs);

// "judged beside newer runs of its host and suite for the 37 of its 40 points they did not
// measure again" (and ": it did not finish its plan, and no newer run of that plan did"): what
// check and the history say of an older run still judged, for those points alone.
std::string kept_beside_text(const SupersedeOutcome &outcome);

} // namespace railgauge::analysis
