#pragma once
// `railgauge burnin`: the node burn-in in one command. It plans the burnin-gpu suite for this
// node's GPUs within --budget (cli/burnin_plan.h) and prints the plan, runs it (every phase on
// every GPU at once), prints each phase's measured wall time beside its plan, and judges the run
// with `check --rules auto` (the profile of the GPUs found, said) or the --rules given.
//
// Exit status: check's (0 pass, 1 warn, 2 fail), or 3 and 4 as every railgauge command when the
// run itself could not be made.
#include <optional>
#include <string>
#include <vector>

#include "cli/measure_command.h"

namespace railgauge {

struct BurninOptions {
  CommonOptions common;
  double budget_s = 600;
  std::string rules = "auto";
  bool plan_only = false;
  std::optional<int> plan_gpus; // --plan-only for a node of this many GPUs
  std::optional<std::string> suites_dir;
};

CLI::App *add_burnin_command(CLI::App &app, BurninOptions &o);

int run_burnin(Registry &&registry, const BurninOptions &o, const std::vector<std::string> &argv,
               rdma::LedgerPlace *ledger);

} // namespace railgauge
