#pragma once
// The wall-time plan of `railgauge burnin`: before anything runs, each phase of the burnin-gpu
// suite gets its planned time (its set duration plus an estimate of what surrounds it), and the
// plan is fitted to --budget by shortening the timed phases (the GEMM burns of each dtype and the
// HBM burn) in proportion, never below their floors and never by dropping a phase: a budget that
// cannot hold every phase is an input error that says the least it needs.
//
// The estimates around the timed work are estimates (named so in the plan): the run records
// each phase's measured wall time beside its plan (phase_wall_times), so a plan can be checked
// against the node it ran on.
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "harness/suite.h"
#include "records/burnin_phase_name.h"

namespace railgauge {

// The default budget: a node of 8 GPUs burned in within 10 minutes (DCGM's level 3 takes ~15).
inline constexpr double kDefaultBurninBudgetS = 600;

struct BurninPhase {
  std::string key;           // burnin_phase_name(): the key, with a GEMM's dtype but bf16's
  double duration_s = 0;     // the set time the phase loads every GPU (0: stopping rule)
  double min_duration_s = 0; // the least the budget may shorten it to (0: not shortened)
  double around_s = 0;       // estimated setup, warm-up, sampling and data check around it
  std::string estimate;      // what around_s counts
  double planned_s() const { return duration_s + around_s; }
};

// The HBM of the GPUs planned for: what the pattern test's time follows (it writes and reads
// nearly all of the memory, rounds x patterns times over).
struct BurninHbm {
  std::string gpu_name;
  double memory_bytes = 0;
  double bandwidth_gbytes_per_s = 0; // a healthy GPU's sustained memory.burn copy
};

// The HBM of a GPU by its name and memory: an H100's or H200's sustained memory.burn figure
// (results/reference/h100-burnin-2026-11-26: 3,022.8 GB/s; h200-burnin-2026-11-27: 4,273.9),
// the H100's, the slower, for a GPU of another name. Without a GPU NVML can read (--plan-only on
// a machine without one, or --plan-gpus): an H200 SXM's 141 GB, the longest pattern test of the
// SKUs the profiles know.
BurninHbm burnin_hbm(const std::string &gpu_name, double memory_bytes);
BurninHbm burnin_hbm_without_gpu();

struct BurninPlan {
  std::vector<BurninPhase> phases;
  std::vector<SuiteEntry> entries; // the suite's entries with the fitted durations
  int gpus = 0;
  double budget_s = 0;
  double planned_s = 0;
  bool trimmed = false; // the timed phases were shortened to fit

  nlohmann::json to_json() const;
};

// Plans `entries` (the burnin-gpu suite's) for a node of `gpus` GPUs within `budget_s`. Throws
// InputError when even the shortest plan exceeds the budget.
BurninPlan plan_burnin(std::vector<SuiteEntry> entries, int gpus, double budget_s,
                       const BurninHbm &hbm = burnin_hbm_without_gpu());

// "Burn-in plan for 8 GPUs: ..." one row per phase, the total against the budget.
std::string render_burnin_plan(const BurninPlan &plan);

// Each phase's measured wall time from the records (phases in run order, each ending at its last
// record's time_utc) and the run's start: {burnin_phase_name(): seconds}. Records without a time
// are skipped.
nlohmann::json phase_wall_times(const std::vector<nlohmann::json> &records,
                                const std::string &start_utc);

// Seconds since the epoch of "2026-11-22T10:00:00.123Z" (utc_timestamp_now's form); throws
// InputError for another form.
double utc_seconds(const std::string &timestamp);

} // namespace railgauge
