#pragma once
// The input of every analysis command (check, compare, report, calibrate): run directories read
// back from disk, never the hardware. A path may be a run directory (run.json beside
// records.jsonl), a directory holding many (every rank's or node's run of a rack, gathered or
// on a shared file system: searched recursively), or a records.jsonl file itself.
//
// Lines that cannot be read are kept as problems with file:line, never silently dropped.
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "harness/record.h"

namespace railgauge::analysis {

struct LoadedRun {
  std::string dir;         // the directory holding records.jsonl
  nlohmann::json manifest; // run.json, or null when the directory has none
  std::vector<Record> records;
};

struct RunSet {
  std::vector<LoadedRun> runs;
  std::vector<std::string> problems; // "<path>:<line>: <what>", run.json that cannot be read

  std::size_t record_count() const;
  // Every record of every run, in load order.
  std::vector<const Record *> records() const;
};

// Loads every path in order. Throws InputError naming the path when it does not exist or holds
// no records.jsonl at all, and when not one record of all of them can be read.
RunSet load_runs(const std::vector<std::string> &paths);

// Retests supersede: keeps, per host, suite and world size (manifest world.size), only the runs
// of the newest run id (by the manifest's start time), so a passing retest beside an old failing
// run is judged alone, while a node's 8-rank run and a 16-rank run across nodes of the same suite
// are both kept.
// Returns the run directories dropped.
std::vector<std::string> keep_latest_per_host(RunSet &set);

// "node07 has 2 runs of suite 'node' on 8 ranks" for each host, suite and world size with more
// than one run id.
std::vector<std::string> superseded_runs(const RunSet &set);

} // namespace railgauge::analysis
