#pragma once
// `--resume RUN_DIR`: continue an interrupted run (killed, out of disk, a hung point stopped by
// the watchdog) in its own directory, appending to the same records.jsonl (docs/reliability.md).
//
// A planned point is done when records.jsonl holds a record with the same key and axes (the
// axis values planned for it; records written before `axes` existed are matched on their
// params). Done points are not run again whatever their status, except `error` points with
// --retry-errors: `waived` is a property of the machine and build, which have not changed;
// `ok` and `failed` are results. A retried point gets a second record after its `error` one;
// records are never rewritten, and a point's last record is its result.
//
// A multi-rank run resumes from its root directory (each rank takes its rank-NNNNN directory)
// with the same launcher and rank count; the ranks agree through the store on the points that
// every one of them has done, and only those are skipped.
//
// Refused, with an InputError, when: the directory has no readable run.json; another process
// holds the run (a live `railgauge` still writing it); the run belongs to another host or rank;
// this command's suite or plan (keys, axis values, measurement settings) differs from the run's
// (run.json "plan.digest"); or run.json says "complete" and every planned point has a record
// (unless --force, e.g. with --retry-errors). A run that says "complete" with points never run
// (an older railgauge so marked a run a lost peer had stopped) resumes, with a note.
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "harness/manifest.h"
#include "harness/point_results.h"
#include "harness/runner.h"
#include "harness/store/store.h"

namespace railgauge {

// run.json "plan": {"digest": FNV-1a 64 of every key, axis values and measurement settings in
// plan order, "points": N}.
nlohmann::json plan_summary(const RunPlan &plan);

// Holds an exclusive flock(2) on the run directory for as long as a process writes the run, so
// that --resume cannot append beside a run that is still alive. The kernel drops the lock when
// the holder dies, SIGKILL included. Throws InputError when another process holds it.
class RunDirLock {
public:
  explicit RunDirLock(const std::string &dir);
  ~RunDirLock();
  RunDirLock(const RunDirLock &) = delete;
  RunDirLock &operator=(const RunDirLock &) = delete;

private:
  int fd_ = -1;
};

struct ResumeOptions {
  bool force = false;        // resume a run that run.json calls complete
  bool retry_errors = false; // run `error` points again
};

// What an interrupted run directory already holds, checked against this command's plan.
class ResumeState {
public:
  // Checks the manifest against this command (see the top of this file), then reads
  // records.jsonl. A last line cut short (power loss) is removed, so new records start on a
  // line of their own; it is named in notes(). Call with the directory's RunDirLock held.
  ResumeState(const std::string &dir, const nlohmann::json &manifest, const RunPlan &plan,
              const nlohmann::json &suite_info, const std::string &host, int rank,
              ResumeOptions options);

  const RunIdentity &id() const { return id_; }
  // Whether this planned point is done and is not to be run again.
  bool skip(std::string_view key, const Point &point) const;
  // Several ranks resume together: through the store they agree that a point is skipped only
  // where every rank skips it (a point that one rank recorded and another did not, the one in
  // progress when a rank died, runs again on all of them, so that no rank waits in a collective
  // the others skip). Points this rank gives up are said in notes().
  void agree_with_other_ranks(Store &store, int world_size, Milliseconds timeout);
  // The statuses of the planned points that are skipped (their last records).
  std::map<std::string, int> kept_counts() const;
  std::size_t skipped_points() const;
  // Records that could not be read, a truncated last line that was removed: shown to the user.
  const std::vector<std::string> &notes() const { return notes_; }

private:
  // Throws InputError when run.json's status is "complete" and every planned point has a
  // record, unless --force.
  void refuse_if_complete(const std::string &status, const std::string &where);
  bool skips(const std::string &identity) const;
  // The identities (point_identity) of the planned points skip() would skip.
  std::vector<std::string> skipped_identities() const;
  RunIdentity id_;
  ResumeOptions options_;
  std::map<std::string, Status> last_status_; // identity -> status of its last record
  std::vector<std::string> planned_;          // identities of the plan's points
  std::vector<std::string> notes_;
  std::optional<std::set<std::string>> agreed_; // skipped on every rank (agree())
};

// The run directory --resume RUN_DIR means for this rank: RUN_DIR itself, or, when RUN_DIR is
// the root of a multi-rank run (no run.json, a rank-NNNNN directory per rank), this rank's.
std::string resume_directory(const std::string &given, int rank);

// Adds this resume to run.json "resumes" and sets it running again; the caller writes it.
void mark_resumed(Manifest &manifest, const std::vector<std::string> &argv,
                  const ResumeState &state, std::size_t points_planned);

} // namespace railgauge
