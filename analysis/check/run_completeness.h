#pragma once
// Whether a run holds what its own run.json says it should: the evidence behind the built-in
// rule run-complete (evaluate.h). A run cut short passes no rule by the records it has.
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "analysis/run_set.h"

namespace railgauge::check {

// Why a run is not whole, by its own run.json: a status other than `complete`, fewer records
// than `points_planned`, or per-status `counts` that disagree with the records read (a record
// line cut in half). Empty when it is whole, or when run.json does not state these (a run
// written by hand, records.jsonl alone).
std::vector<std::string> incompleteness(const analysis::LoadedRun &run);

// run.json's lost_ranks as (rank, host), host "" where not named; nothing when absent (written
// before railgauge named them) or not a list of objects with a whole rank.
std::vector<std::pair<long long, std::string>> lost_ranks_of(const nlohmann::json &m);

// Why a run that is not whole is no fault of its node `host`: it stopped because ranks on other
// hosts were lost (run.json lost_ranks, which railgauge writes when the store saw a rank go):
// "stopped by lost rank 1 on node-b; 6 of 9 planned points not measured". run-complete then does
// not fail this node (it warns: the points that never ran are not passed), and the lost rank's
// own node fails it. Nothing when run.json names no lost rank (an older run.json too), or one
// whose host it does not know, or one on `host` itself, or one whose own run (in `runs`) names
// `host` as lost in turn: the node is then judged as before.
std::optional<std::string> stopped_by_lost_rank_elsewhere(const analysis::LoadedRun &run,
                                                          const std::string &host,
                                                          const analysis::RunSet &runs);

// The first half of the above, from the run alone: "stopped by lost rank 1 on node-b; 6 of 9
// planned points not measured", or nothing. The fleet history stores a run excused by it, as it
// cannot see the lost rank's run until that is stored too (history/ingest.cpp).
std::optional<std::string> lost_ranks_elsewhere(const analysis::LoadedRun &run,
                                                const std::string &host);

// The host of a rank `run` lost whose own run (in `runs`) names `host` as lost in turn: neither
// is excused. Nothing when there is none.
std::optional<std::string> lost_in_turn_by(const analysis::LoadedRun &run, const std::string &host,
                                           const analysis::RunSet &runs);

// run-complete's words for such a run, before its excuse and why it is not whole: "the rank it
// lost on node-b names this node lost in turn: the link between them, or either node, failed".
std::string lost_in_turn_text(const std::string &other_host);

// Why a run that is not whole is no fault of its node: a signal from outside stopped it (run.json
// status `interrupted`: a job's time limit, scancel, Ctrl-C), and it holds every record its
// run.json counts: "stopped by SIGTERM from outside the run (...); 6 of 9 planned points not
// measured (not passed): ...". run-complete then warns (not a pass: the points never measured are
// not judged, and not a drain: nothing of the node failed), and the point the signal cut
// (is_point_that_stopped_the_run) is not judged either. Nothing for a run that was not
// interrupted, or one whose records do not match its counts (evidence lost as well).
std::optional<std::string> stopped_by_signal(const analysis::LoadedRun &run);

// Either of the two above: why the node `host` is not to blame for its run being cut short.
// run-complete's detail is then kNotJudged, that, "; " and the reasons the run is not whole; the
// fleet history stores a run's reasons so (runs.incomplete; a lost rank's excuse is undone when
// the lost rank's run is stored naming this node in turn: history/lost_ranks.h) and judges it as
// check does.
std::optional<std::string> stopped_from_outside(const analysis::LoadedRun &run,
                                                const std::string &host,
                                                const analysis::RunSet &runs);

// A run of several ranks (run.json world.size > 1) of which fewer ranks were read than it had:
// the hosts of the ranks read, and why. The ranks not given are nodes the verdict would never
// name (a directory of one node's ranks, a copy that lost some): each host read is not whole.
// Whether `r` is the error record of the point at which the run stopped early, by run.json's
// failure ("the run stopped after 3 of 9 points (6 never ran): REASON", REASON being the record's):
// the point a lost peer broke; or, in a run that run.json calls interrupted, the point the signal
// cut ("interrupted by SIGTERM while running ..."). In a run that stopped_from_outside excuses, it
// is no evidence against the node either, so record-status does not fail it.
bool is_point_that_stopped_the_run(const analysis::LoadedRun &run, const Record &r);

inline constexpr std::string_view kNotJudged = "not judged: ";

// Whether the point a signal cut ran long enough to have hung short of --point-timeout: its reason
// ("..., 590.2 s in (--point-timeout 600 s)") says it ran past half its timeout (300 s with none),
// or past twice its planned duration_s and a minute, or does not say how long it ran (a run of an
// older railgauge). Such a point is no time limit's cut: neither it nor its run is excused.
bool cut_point_may_have_hung(const Record &r);

// Whether `r` is the error record of the point a signal cut ("interrupted by SIGTERM while
// running ...").
bool is_signal_cut(const Record &r);

// record-status's detail of the point a signal cut, over a run's directory and in the fleet
// history alike: "not judged: a signal from outside the run cut it; REASON".
std::string signal_cut_point_detail(const std::string &reason);

// The detail of a rule's missing value on a node with a run stopped_from_outside (a warning, as
// the point may be one that never ran): "not judged: a run of this node was stopped from outside
// (run-complete says by what); DETAIL".
std::string stopped_node_detail(const std::string &detail);

// When every rank not given is one that the ranks read name as lost on a known host (run.json
// lost_ranks: a node that died took its run directory with it), `hosts` are those lost ranks'
// hosts instead: the node that was lost is named, and the survivors are judged by their own runs.
struct MissingRanks {
  std::string run;                // the run id
  std::vector<std::string> hosts; // of the ranks read, sorted
  std::string why;
  std::vector<long long> absent; // the ranks not given (the first 64 of them)
  long long absent_count = 0;
};
std::vector<MissingRanks> missing_ranks(const analysis::RunSet &runs);

// One rank of a run as its run.json states it: the fleet history judges the ranks it stored.
struct RankOfRun {
  std::string run, host;
  long long world_size = 0, world_rank = 0;
  std::vector<std::pair<long long, std::string>> lost; // lost_ranks_of its run.json
};
std::vector<MissingRanks> missing_ranks(const std::vector<RankOfRun> &ranks);

} // namespace railgauge::check
