#pragma once
// `check --history DB`: each part judged against its own past, beside the floors and the fleet.
// A part is its slot on its host (GPU: PCI bus id; NIC: device name); the serial (else UUID,
// else GUID) it holds is noted, and a new one in the slot restarts the slot's history (a GPU
// whose UUID is the previous part's is that part: its serial was not read before).
//
//   history-drift            the figure's Theil-Sen line over the last runs falls by more than
//                            max(drift_min_fraction, drift_noise_multiple x the residual noise),
//                            with most pairs of runs agreeing (a trend, not one bad run)
//   history-step             the latest figure moved from the previous run's by more than
//                            max(step_min_fraction, step_noise_multiple x the history's noise):
//                            a drop warns, a rise (a firmware update?) is said
//   history-replaced         the latest run found a new part in the slot: its history restarts
//   history-repeat-offender  a host failed offender_failures of its last offender_runs runs of a
//                            suite (a run fails when a record failed or errored, or when an
//                            earlier `check --history` of it said fail): a lemon
//
// The history is read row by row, in order, never the whole of it in memory.
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "analysis/check/check_result.h"
#include "analysis/check/history_thresholds.h"
#include "analysis/history/database.h"
#include "analysis/history/newest_runs.h"

namespace railgauge::history {

// Read from the rules file's `history:` section (analysis/check/history_thresholds.h).
using HistoryOptions = check::HistoryThresholds;

inline constexpr const char *kDriftRule = "history-drift";
inline constexpr const char *kStepRule = "history-step";
inline constexpr const char *kReplacedRule = "history-replaced";
inline constexpr const char *kOffenderRule = "history-repeat-offender";

struct HistoryJudgement {
  std::vector<std::pair<check::PartKey, check::Finding>> findings;
  std::map<std::pair<check::PartKey, std::string>, check::RuleTally> tallies; // part, rule
  long long series = 0; // figure series judged
  long long values = 0; // figures read
  // Runs whose clocks the history could not trust (newest_runs.h), "host: what", for the
  // result's problems.
  std::vector<std::string> problems;
  // How the history dated every run: what judge_record_rules reads its newest runs from.
  NewestRuns dating;
  // By host, the order (NewestRuns::order_s) of the run that found its newest replaced part:
  // history-repeat-offender says where failures it counts came before it.
  std::map<std::string, double> replaced_at_s;
};

// Whether judge_history judges history-repeat-offender too, or leaves it to
// judge_repeat_offenders once this check's verdicts are stored.
enum class Offenders { judged, later };

// Judges the parts of `hosts` (every host in the database when empty).
HistoryJudgement judge_history(Database &db, const std::vector<std::string> &hosts,
                               const HistoryOptions &options = {},
                               Offenders offenders = Offenders::judged);

// history-repeat-offender alone, after record_verdicts has stored what this check concluded of
// the runs it judged: judged before, a run's own failure counted only from the next check on (the
// third failed run of three read no repeat offender until it was checked again). Runs stored and
// never judged by a check (a backlog given to `db ingest`) hold no verdict: a problem line counts
// the hosts where such runs are among the last runs the rule reads.
// `replaced_at_s`: judge_history's, where a part was replaced: a host's failures count
// whichever part failed (a lemon host), and a finding says when a part was replaced since some
// of them (seven healthy retests of a swapped GPU read "repeat offender" with no word of it).
HistoryJudgement judge_repeat_offenders(Database &db, const std::vector<std::string> &hosts,
                                        const HistoryOptions &options, const NewestRuns &dating,
                                        const std::map<std::string, double> &replaced_at_s);

// Adds the judgement to a check's result: findings and tallies to their parts (a part the runs
// judged did not show is added), the verdicts raised where a finding is worse.
void add_history(check::CheckResult &result, const HistoryJudgement &judgement);

// A run judged, by its host, its run id and its directory (what its findings name).
struct JudgedRun {
  std::string host, run_id, dir;
};

// Stores what `check` concluded of each run's host in the verdicts table (one transaction): a
// row a part with its verdict (rule "verdict"), and a row a finding at warn or fail. The runs
// must be in the database (ingest_run). Of several runs of one host, each gets the verdict of the
// findings of its own directory and of its node's findings that name no run.
void record_verdicts(Database &db, const check::CheckResult &result,
                     const std::vector<JudgedRun> &runs);

} // namespace railgauge::history
