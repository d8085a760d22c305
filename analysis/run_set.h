#pragma once
// The input of every analysis command (check, compare, report, calibrate): run directories read
// back from disk, never the hardware. A path may be a run directory (run.json beside
// records.jsonl), a directory holding many (every rank's or node's run of a rack, gathered or
// on a shared file system: searched recursively, symbolic links followed), or a records.jsonl
// file itself.
//
// Nothing given is dropped silently: lines that cannot be read are problems with file:line, and
// a directory or file that cannot be read (no permission, an I/O error, a FIFO or a directory
// where a file belongs, a dangling or looping link) is an unreadable path, which `check` judges.
// A copy of a run (the same run id, host and rank, or the same records) is loaded once and said.
#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "harness/record.h"
#include "harness/run_fields.h"

namespace railgauge::analysis {

struct LoadedRun {
  std::string dir;         // the directory holding records.jsonl
  nlohmann::json manifest; // run.json, or null when the directory has none
  // Each point's result, its last record (keep_point_results): the error record of a point that
  // a resume ran again is not a result, and no command judges, compares or stores it.
  std::vector<Record> records;
  // The records read that a later record of the same point replaced: with `records`, every
  // record the file holds (a file only grows, so this tells a fuller copy).
  std::size_t replaced_records = 0;
  // Results a newer run of the host measured again (`check --latest-per-host` keeps an older run
  // judged for the points they did not: run_points.h): not judged, and still counted as written;
  // and, where there are any, every result in the file's order, as the fleet history stores it.
  std::vector<Record> superseded = {};
  std::vector<Record> all_results = {};

  std::size_t records_written() const {
    return records.size() + replaced_records + superseded.size();
  }
};

// The run with every result its file holds, those set aside as measured again included: as the
// fleet history stores it. Nothing when none was set aside (the run is that already).
inline std::optional<LoadedRun> with_results_set_aside(const LoadedRun &run) {
  if (run.superseded.empty())
    return std::nullopt;
  return LoadedRun{run.dir, run.manifest, run.all_results, run.replaced_records};
}

// A path the loader could not read, and why (the errno text, or what the path is instead).
struct UnreadablePath {
  std::string path;
  std::string what;
  // The host whose run this was, where its run.json names one: a run the fleet history could
  // not store is its node's newest run unknown, never its older pass standing.
  std::string host = {};
  // Read whole, but not as railgauge writes it (a point recorded twice): refused, its records
  // still judged beside the refusal, not unreadable.
  bool refused = false;

  bool operator==(const UnreadablePath &) const = default;
};

// "PATH cannot be read: WHAT", or "PATH is refused as written: WHAT" for a file read whole but not
// as railgauge writes it. Inline: check reads run_set.h for its types alone, and does not link
// the library that loads runs.
inline std::string unreadable_text(const UnreadablePath &u) {
  return u.path + (u.refused ? " is refused as written: " : " cannot be read: ") + u.what;
}

struct RunSet {
  std::vector<LoadedRun> runs;
  // "<path>:<line>: <what>", run.json that cannot be parsed, every unreadable path, copies and
  // link loops: what every command lists beside its output.
  std::vector<std::string> problems;
  std::vector<UnreadablePath> unreadable;
  // Why the runs ended before every step of the job ran (check --cut-short: a job's time limit),
  // "" when they did not: a rule that finds no record on a node warns, saying so, rather than
  // failing the node at its on_missing level for a point that never ran.
  std::string cut_short;

  std::size_t record_count() const;
  // Every record of every run, in load order.
  std::vector<const Record *> records() const;
};

struct LoadOptions {
  // Runs refused before their first point (run.json status "refused": a node short of what
  // --expect names), and any run.json beside no record read (a run interrupted before its first
  // record, a records file empty or a directory), are input even when no run holds a record:
  // check judges their nodes (each fails run-complete), where compare and report have nothing
  // to show.
  bool refused_runs_are_input = false;
};

// The walk of load_runs alone: every records.jsonl at or under the paths, in order, each file
// once (directory links followed, each directory listed once, a link back to a directory the walk
// is inside named as a loop), and every path that could not be read. Throws InputError as
// load_runs does for a path that does not exist or holds no records.jsonl and nothing unreadable.
// For a command that stores the runs it finds one at a time (db ingest) rather than judging them
// together.
struct FoundRuns {
  std::vector<std::string> record_files;
  std::vector<std::string> problems;
  std::vector<UnreadablePath> unreadable;
};
FoundRuns find_runs(const std::vector<std::string> &paths);

// One records.jsonl that find_runs found, loaded as load_runs loads it (run.json beside it, a
// refused run named): what cannot be read is in the set's problems and unreadable paths, never
// thrown, and a run whose records.jsonl cannot be read is still there when its run.json could be.
RunSet load_run_file(const std::string &records_file);

// Loads every path in order. Throws InputError naming the path when it does not exist (with
// the errno text: a link loop says so) or holds no records.jsonl and nothing unreadable, and
// when not one record of all of them can be read (unless options say a refused run is input).
// A refused run is named among the problems, with why.
RunSet load_runs(const std::vector<std::string> &paths, LoadOptions options = {});

// The set with each GPU of every point that ran on every GPU at once (a burn-in phase) read as a
// record of its own beside the point's record (records/per_gpu_parts.h), as check judges them:
// compare and report match and draw per-GPU figures by it.
RunSet with_per_gpu_parts(RunSet set);

// A text field of the run's run.json, "" when it has none (or it is empty).
inline std::string manifest_text(const LoadedRun &run, const char *field) {
  const auto &m = run.manifest;
  if (m.is_object())
    if (const auto it = m.find(field); it != m.end() && it->is_string())
      return it->get<std::string>();
  return "";
}

// Whether a run's start_utc can date it against the host's other runs: the form railgauge writes
// (2026-11-28T21:10:32.123Z, which sorts as text), from 2000 on, and not after this machine's
// clock by more than a day. A run dated 2099 (a clock set ahead) was the newest for good and hid
// every later run; one of 1970 (a clock reset after an RMA) lost to the older pass; a time with
// an offset (+02:00) sorted as text against Z times. Such a run is judged beside its host's
// newest, never taken for it or superseded by it. An empty start is not checked here: a run
// without one is dated by its first record, or is the oldest.
bool plausible_start(const std::string &start_utc);

// A plausible start (above) as UTC seconds since 1970, its fraction kept: nullopt otherwise.
// Times are ordered by this, not as text: "10:00:00Z" sorted after "10:00:00.5Z".
std::optional<double> start_seconds(const std::string &start_utc);

// The host a run is of: its run.json's, else its first record's, else its directory. Inline:
// check's one-machine-per-host reads it (run_machines.h) without linking this library.
inline std::string host_of(const LoadedRun &run) {
  if (auto host = manifest_text(run, run_field::kHost); !host.empty())
    return host;
  return run.records.empty() ? run.dir : run.records.front().host;
}

// The run's id: run.json's, else its first record's, else its directory's name. One for
// `check --latest-per-host` and the fleet history's ingest (inline, as host_of): a run.json
// written without one once made every such run of a host one run over directories, all judged,
// while the history kept the newest.
inline std::string run_id_of(const LoadedRun &run) {
  if (auto id = manifest_text(run, run_field::kRun); !id.empty())
    return id;
  if (!run.records.empty())
    return run.records.front().run;
  return std::filesystem::path(run.dir).filename().string();
}

// Retests supersede: per host, suite, world size (manifest world.size) and ranks on the host,
// the newest run id (by the manifest's start time) is judged, and an older one only where the
// newer runs did not measure all it measured (run_points.h: a retest with --filter supersedes
// nothing it did not run again), so a passing retest beside an old failing run is judged alone,
// while a node's 8-rank run and a 16-rank run across nodes of the same suite are both kept, and
// so are 8 nodes' one-rank-per-node step and one node's 8-rank step (both worlds of 8). A run of
// another machine that reports the same host name (run_machines.h) is never superseded.
// `whole` says whether a run directory did all its run.json planned (check's run-complete).
// Returns the run directories dropped; `kept_beside` gets a line for each older run still judged
// ("node07: run r1 (started ...) is judged beside newer runs ...: they measured 3 of its 40
// points again").
using WholeRun = std::function<bool(const LoadedRun &)>;
std::vector<std::string> keep_latest_per_host(RunSet &set, const WholeRun &whole,
                                              std::vector<std::string> *kept_beside = nullptr);
// The same, a run whole when its run.json's status is complete or absent.
std::vector<std::string> keep_latest_per_host(RunSet &set);

// "node07 has 2 runs of suite 'node' on 8 ranks" for each host, suite and world size with more
// than one run id.
std::vector<std::string> superseded_runs(const RunSet &set);

} // namespace railgauge::analysis
