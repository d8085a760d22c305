#pragma once
// What every measuring subcommand (run, burnin, the family commands) shares: its flags, and the
// whole measuring path: plan (every input error surfaces here, before anything runs), create the
// run directory, write the manifest, run, and end the manifest.
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "analysis/commands/db_command.h"
#include "harness/registry.h"
#include "harness/suite.h"
#include "rdma/ledger_place.h"

namespace CLI {
class App;
}

namespace railgauge {

// Flags every measuring subcommand takes.
struct CommonOptions {
  std::string out_dir = "runs";
  std::optional<std::string> filter;
  std::vector<std::string> axes;
  std::string format = "table";
  bool quiet = false;
  bool no_verify = false;
  std::vector<std::string> measure; // NAME=VALUE
  std::optional<double> time_budget_s;
  std::optional<std::string> topology_file;
  std::optional<std::string> resume_dir; // --resume: continue this run directory
  std::vector<std::string> expect;       // --expect gpus=8,nics=8
  bool force = false;
  bool retry_errors = false;
  double point_timeout_s = 600;
  double progress_every_s = 30;         // a batch log's progress line (stderr not a terminal)
  std::optional<std::string> store_url; // --store: where several ranks meet
  double store_timeout_s = 300;
  history::DbFlags db; // --db: the finished run into the fleet history (run_ingest.h)
};

void add_common_options(CLI::App &cmd, CommonOptions &o);

// Where suites are looked for: --suites-dir, $RAILGAUGE_SUITES, the shipped ones.
std::vector<std::string> suite_dirs(const std::optional<std::string> &extra);

// Measures `entries` (a suite's) with `benchmarks`; returns the exit status. `ledger`, when
// given, receives this rank's run directory once it exists and, with --db, the fleet history's
// coverage ledger (the pair matrices' cover_since reads both).
int measure_entries(Registry &&benchmarks, std::vector<SuiteEntry> entries, const CommonOptions &o,
                    const std::vector<std::string> &argv, const nlohmann::json &suite_info,
                    rdma::LedgerPlace *ledger = nullptr);

} // namespace railgauge
