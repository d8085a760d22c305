#pragma once
// Turns suite entries and command-line overrides into a plan (benchmark x points), then runs
// it: a point that supported() rejects becomes a `waived` record, an exception inside run()
// an `error` record, and every record is appended to records.jsonl and shown as it finishes.
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "harness/manifest.h"
#include "harness/noise_bound.h"
#include "harness/record_io.h"
#include "harness/record_printer.h"
#include "harness/registry.h"
#include "harness/run_context.h"
#include "harness/suite.h"

namespace railgauge {

// `-a NAME=SPEC` on the command line: replaces the axis's values in every planned benchmark
// that has the axis.
struct AxisOverride {
  std::string name;
  std::string spec;
  std::string where; // e.g. "--axis size_bytes=..."
};

// Throws InputError when the text is not NAME=SPEC.
AxisOverride parse_axis_override(const std::string &text);

struct PlanItem {
  Benchmark *benchmark = nullptr;
  std::vector<Point> points;
  MeasureSpec measure;
};

struct RunPlan {
  std::vector<PlanItem> items;
  std::size_t point_count() const;
};

// Throws InputError on an unknown key (naming the closest), an unknown axis (naming the
// benchmark's axes), a bad value (with file:line or flag) or a filter that selects nothing.
RunPlan make_plan(const Registry &registry, const std::vector<SuiteEntry> &entries,
                  const std::vector<AxisOverride> &overrides,
                  const std::optional<std::string> &filter, const RunContext &ctx);

struct RunnerOutput {
  RecordFile &records;
  RecordPrinter &printer;
  bool progress = false; // a progress line on stderr (a terminal, not --quiet)
  // --resume: the points that the interrupted run already recorded are not run again.
  std::function<bool(std::string_view key, const Point &point)> skip = {};
  // A point still running after this many seconds (a GPU kernel that never finishes) becomes an
  // `error` record written by a watchdog thread, which then calls on_point_hung with it (the
  // command line marks run.json and ends the process: harness/watchdog.h). 0: no deadline.
  double point_timeout_s = 0;
  std::function<void(const Record &record)> on_point_hung = {};
  // SIGTERM or SIGINT during the run (harness/interrupt_watch.h): the point running then, when
  // the watchdog watches one, becomes an `error` record ("interrupted by SIGTERM"), and this is
  // called with it (or nullptr between points) and the signal; the command line marks run.json
  // and ends the process. Unset: the signals keep their default action.
  std::function<void(const Record *point, int signo)> on_interrupt = {};
  // Not a terminal (a batch job's log): a progress line every this many seconds, with the points
  // done of those planned, the time so far and the time left at the pace of the points measured
  // (harness/progress_log.h: waived points take none). 0: none.
  double log_progress_every_s = 0;
  // When given: set to why the run stopped before its last point (a lost peer's error), so that
  // the caller does not mark a run complete whose later points never ran.
  std::string *stopped_early = nullptr;
  // When given: every ok point whose noise exceeds its spec's noise_bound, in the order measured,
  // so that the summary names them and the run's exit status says so.
  std::vector<NoisyPoint> *noisy = nullptr;
};

// What the runner records of a point: the record it planned (identity, key, axes as params) with
// the outcome merged in (derived params over the planned ones, device, metrics, status and
// reason, moved out of `outcome`), stamped now. Public so that a family's record type is tested
// through the runner's own merge.
Record outcome_record(Record planned, Outcome &outcome);

// Runs every point (but those out.skip() says are done); returns the number of records per
// status. A record that cannot be written (disk full, directory removed) throws BackendError.
std::map<std::string, int> execute_plan(const RunPlan &plan, RunContext &ctx, const RunIdentity &id,
                                        RunnerOutput out);

} // namespace railgauge
