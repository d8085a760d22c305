#pragma once
// run.json, the manifest of a run directory (docs/design.md "Data flow"): who ran what, with which
// build, on which machine, when. Written when the run starts (status "running") and replaced
// atomically when it ends ("complete"); a manifest still "running" after the process is gone
// marks an interrupted run, whose records.jsonl is valid up to the last point measured.
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace railgauge {

inline constexpr const char *kRunSchema = "railgauge.run/1";

struct RunIdentity {
  std::string run_id;
  std::string host;
  int rank = 0;
  std::string dir; // <out>/<run-id>
};

// Creates <out>/<run-id>/ with run-id "2026-11-22T10-00-00Z-<host>-<pid>" (suffixed -2, -3, ...
// when taken): unique per host, even for runs started in the same second. Throws InputError
// before anything runs when `out` cannot be created or written.
RunIdentity create_run_directory(const std::string &out, const std::string &host, int rank);

// The node's name for run.json and records (harness/node_name.h: $SLURMD_NODENAME under Slurm,
// else the host name), "unknown-host" when neither is known.
std::string this_host_name();

class Manifest {
public:
  Manifest(const RunIdentity &id, const std::vector<std::string> &argv);
  // The run.json of an existing run directory (--resume). Throws InputError naming the file
  // when it is missing, not JSON, or not a railgauge run manifest.
  static Manifest load(const std::string &dir);

  nlohmann::json &data() { return data_; }
  // Replaces <dir>/run.json atomically (write to a temporary file, then rename).
  void write() const;
  // Sets the end time, the status and the record counts, then writes.
  void finish(const std::string &status, const std::map<std::string, int> &counts);

private:
  Manifest(std::string dir, nlohmann::json data) : dir_(std::move(dir)), data_(std::move(data)) {}
  std::string dir_;
  nlohmann::json data_;
};

} // namespace railgauge
