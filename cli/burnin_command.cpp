#include "cli/burnin_command.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <optional>

#include <CLI/CLI.hpp>
#include <fmt/format.h>
#include <fmt/ranges.h>

#include "analysis/commands/check_command.h"
#include "analysis/run_set.h"
#include "cli/burnin_gpu_table.h"
#include "cli/burnin_plan.h"
#include "cli/cli.h"
#include "cli/seconds_option.h"
#include "harness/cuda/device.h"
#include "harness/did_you_mean.h"
#include "harness/error.h"
#include "harness/exit_status.h"
#include "harness/expectations.h"
#include "harness/inventory/inventory_fields.h"
#include "harness/inventory/nvml_query.h"
#include "harness/metric_names.h"
#include "harness/registry.h"
#include "harness/run_fields.h"

namespace railgauge {
namespace {

namespace fs = std::filesystem;

constexpr const char *kBurninSuite = "burnin-gpu";

// The run as check reads it (analysis/run_set.h): a line it cannot read is named, not left out
// without a word; a run refused before its first point has no record and is read all the same.
std::optional<analysis::LoadedRun> read_run(const fs::path &dir) {
  try {
    auto set = analysis::load_runs({dir.string()}, {.refused_runs_are_input = true});
    for (const auto &p : set.problems)
      std::cerr << "railgauge: burnin: " << p << '\n';
    if (set.runs.empty())
      return std::nullopt;
    return std::move(set.runs.front());
  } catch (const InputError &e) {
    std::cerr << "railgauge: burnin: " << e.what() << '\n';
    return std::nullopt;
  }
}

// Each phase's measured wall time beside its plan, printed and written to burnin.json in the run
// directory (beside run.json, whose suite.burnin_plan holds the plan).
void report_phase_times(const BurninPlan &plan, const fs::path &dir,
                        const analysis::LoadedRun &run) {
  if (!run.manifest.is_object() || !run.manifest.contains(run_field::kStartUtc) ||
      !run.manifest[run_field::kStartUtc].is_string())
    return;
  std::vector<nlohmann::json> records;
  for (const auto &r : run.records)
    records.push_back(r.to_json());
  const auto measured = phase_wall_times(records, run.manifest[run_field::kStartUtc]);
  std::cout << fmt::format("\nBurn-in phases: planned and measured wall time (s)\n{:<28} {:>9} "
                           "{:>9}\n",
                           "phase", "planned", "measured");
  double total = 0;
  for (const auto &p : plan.phases) {
    const double s = measured.value(p.key, -1.0);
    total += s > 0 ? s : 0;
    std::cout << fmt::format("{:<28} {:>9.1f} {:>9}\n", p.key, p.planned_s(),
                             s >= 0 ? fmt::format("{:.1f}", s) : "-");
  }
  std::cout << fmt::format("{:<28} {:>9.1f} {:>9.1f}\n", "total", plan.planned_s, total);
  std::ofstream out(dir / "burnin.json");
  out << nlohmann::json{{"plan", plan.to_json()}, {"measured_s", measured}}.dump(2) << '\n';
  out.flush();
  // The phase times are a summary of the records, which are whole: said, and the run is still
  // judged (it once went unsaid).
  if (!out)
    std::cerr << fmt::format("railgauge: warning: {}: cannot write the burn-in's phase times; "
                             "the run's records and run.json are whole\n",
                             (dir / "burnin.json").string());
}

int judge(const std::string &rules, const fs::path &dir) {
  // Under a launcher each rank has a directory of its own below the run's: judge them together.
  const fs::path run = dir.filename().string().starts_with("rank-") ? dir.parent_path() : dir;
  std::cout << fmt::format("\nrailgauge check --rules {} {}\n", rules, run.string()) << std::flush;
  return analysis::check_runs({run.string()}, rules);
}

// The HBM the pattern test's time is planned from: the first GPU NVML lists (every GPU of a
// burn-in node is one SKU), or an assumed SKU's when the plan is for a node other than this one or
// NVML shows no GPU. NVML, not CUDA: a CUDA query would put a context on GPU 0 from every rank of
// a launcher's burn-in, which each other rank would then see as a foreign process on GPU 0.
BurninHbm hbm_to_plan_for(const std::optional<int> &plan_gpus) {
  if (plan_gpus)
    return burnin_hbm_without_gpu();
  const auto nvml = query_nvml("libnvidia-ml.so.1");
  const auto gpus = nvml.value(inventory_field::kGpus, nlohmann::json::array());
  if (!nvml.value(inventory_field::kAvailable, false) || !gpus.is_array() || gpus.empty() ||
      !gpus[0].value(inventory_field::kName, nlohmann::json(nullptr)).is_string() ||
      !gpus[0].value(inventory_field::kMemoryTotalBytes, nlohmann::json(nullptr)).is_number())
    return burnin_hbm_without_gpu(); // the run itself says what is wrong with the GPUs
  return burnin_hbm(gpus[0][inventory_field::kName].get<std::string>(),
                    gpus[0][inventory_field::kMemoryTotalBytes].get<double>());
}

// The suite's phases that --filter selects, so that the plan and its budget are those of the
// phases that will run; a filter that selects none is refused before the plan is printed, with
// the suite's own keys (the registry's others would select nothing either).
std::vector<SuiteEntry> filtered_phases(const std::vector<SuiteEntry> &entries,
                                        const std::optional<std::string> &filter) {
  if (!filter)
    return entries;
  std::vector<SuiteEntry> kept;
  std::vector<std::string> keys;
  for (const auto &e : entries) {
    if (glob_match(*filter, e.key_glob))
      kept.push_back(e);
    if (std::find(keys.begin(), keys.end(), e.key_glob) == keys.end())
      keys.push_back(e.key_glob);
  }
  if (kept.empty())
    throw InputError(
        fmt::format("--filter '{}' selects no phase of the burn-in", *filter), "--filter",
        fmt::format("{}its phases: {}", did_you_mean(*filter, keys), fmt::join(keys, ", ")));
  return kept;
}

} // namespace

CLI::App *add_burnin_command(CLI::App &app, BurninOptions &o) {
  auto *cmd = app.add_subcommand(
      "burnin", "Burn in this node: every GPU at once, phase by phase (sustained GEMM, HBM, host "
                "copies, NCCL), planned within --budget, then judged per GPU (check --rules auto)."
                "\nExit status: check's (0 pass, 1 warn, 2 fail), 3 crashed, 4 input error, 5 "
                "stopped by the watchdog or a signal (resume it with --resume).");
  cmd->add_option("--budget", o.budget_s,
                  "Seconds the burn-in may take; the timed phases are shortened to fit, never "
                  "dropped (default: 10 minutes)")
      ->capture_default_str()
      ->check(seconds_check(false, "--budget 600 (the default)"));
  cmd->add_option("--rules", o.rules,
                  "Rules to judge the run by: auto (the profile of the GPUs found), a profile "
                  "name or a rules file")
      ->capture_default_str();
  cmd->add_flag("--plan-only", o.plan_only, "Print the plan and stop");
  cmd->add_option("--plan-gpus", o.plan_gpus,
                  "With --plan-only: plan for a node of this many GPUs instead of this one")
      ->check(CLI::Range(1, 1024));
  cmd->add_option("--suites-dir", o.suites_dir, "Also look for the burnin-gpu suite here");
  add_common_options(*cmd, o.common);
  cmd->footer(examples_help(
      {{"railgauge burnin",
        "every local GPU at once within 10 minutes, judged by the profile of the GPUs found"},
       {"railgauge burnin --budget 120",
        "a two-minute burn-in: the timed phases are shortened to fit, never dropped"},
       {"railgauge burnin --plan-only --plan-gpus 8",
        "the phases and their times for an 8-GPU node, without running them"}}));
  return cmd;
}

int run_burnin(Registry &&registry, const BurninOptions &o, const std::vector<std::string> &argv,
               rdma::LedgerPlace *ledger) {
  const auto path = find_suite(kBurninSuite, suite_dirs(o.suites_dir));
  const Suite suite = load_suite_file(path);
  if (o.plan_gpus && !o.plan_only)
    throw InputError("--plan-gpus only goes with --plan-only", "--plan-gpus",
                     "add --plan-only, or drop --plan-gpus: a run burns the GPUs it has");
  // The plan sets each timed phase's duration from --budget and the floors the profiles were
  // measured at; -a duration_s=... would run phases the plan (and run.json) says are longer.
  for (const auto &axis : o.common.axes)
    if (axis.starts_with(std::string(metric::kDurationS) + "="))
      throw InputError(fmt::format("-a {}: a burn-in's phase durations come from its plan", axis),
                       "-a", "give --budget SECONDS: the timed phases are shortened to fit it");
  // Its plan, phase table and verdict are text on standard output, which jsonl or csv would
  // interleave with the records: a reader of the lines could parse none of the text.
  if (o.common.format != "table")
    throw InputError(fmt::format("burnin prints its plan, phase times and verdict as text, not {}",
                                 o.common.format),
                     "--format",
                     "read the records from records.jsonl in the run directory (--out), or "
                     "give --format table");
  if (!o.plan_only)
    analysis::refuse_unreadable_rules(o.rules);
  // A GPU burn-in expects a GPU: gpus=0 made a node without one pass on its waivers alone.
  if (const auto expected = parse_expectations(o.common.expect, "--expect");
      expected.contains("gpus") && expected.at("gpus") < 1)
    throw InputError("--expect gpus=0: a GPU burn-in of a node that expects no GPU would pass on "
                     "waivers alone",
                     "--expect",
                     "give gpus=1 or more (the GPUs the node must have), or leave it out");
  const auto entries = filtered_phases(suite.entries, o.common.filter);
  const int gpus = o.plan_gpus.value_or(gpu::cuda_device_count());
  const BurninPlan plan =
      plan_burnin(entries, std::max(gpus, 1), o.budget_s, hbm_to_plan_for(o.plan_gpus));
  std::cout << render_burnin_plan(plan) << std::flush;
  if (entries.size() < suite.entries.size())
    std::cout << fmt::format("--filter '{}': {} of the suite's {} phases; the run lacks the "
                             "others, and check will not pass a node on it\n",
                             *o.common.filter, entries.size(), suite.entries.size())
              << std::flush;
  // A plan for "1 GPU(s)" on a node that shows none said so only on one phase's line.
  if (gpus < 1)
    std::cout << "No usable GPU here (no NVIDIA driver, or none visible): planned for 1 GPU; "
                 "--plan-gpus N plans for a node of N\n"
              << std::flush;
  if (o.plan_only)
    return code(ExitStatus::ok);
  // A GPU burn-in on a node that shows no usable GPU (no driver, a GPU fallen off the bus) is a
  // failed node, whatever profile judges it: it expects at least one GPU, so such a run is
  // refused before its first point and judged FAIL (exit 2, drained). --expect gpus=N comes
  // after and wins.
  CommonOptions common = o.common;
  common.expect.insert(common.expect.begin(), "gpus=1");
  // The registry's ledger place: a pair matrix of the burn-in writes its coverage ledger too.
  rdma::LedgerPlace own;
  rdma::LedgerPlace &place = ledger ? *ledger : own;
  const int measured = measure_entries(
      std::move(registry), plan.entries, common, argv,
      {{"name", suite.name}, {"path", path}, {"burnin_plan", plan.to_json()}}, &place);
  const std::string dir = place.run_dir;
  // A run refused for missing hardware (fail) is judged too: its verdict names what is missing
  // and puts the node on the drain list.
  if (measured != code(ExitStatus::ok) && measured != code(ExitStatus::problems) &&
      measured != code(ExitStatus::fail))
    return measured;
  // Every rank ran its part; rank 0 reports and judges the run as a whole.
  if (fs::path(dir).filename() != "" && fs::path(dir).filename().string().starts_with("rank-") &&
      fs::path(dir).filename() != "rank-00000")
    return measured;
  if (const auto run = read_run(dir)) {
    report_phase_times(plan, dir, *run);
    std::cout << render_burnin_gpu_table(run->records);
  }
  return judge(o.rules, dir);
}

} // namespace railgauge
