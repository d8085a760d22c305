#include "analysis/commands/compare_command.h"

#include <filesystem>
#include <iostream>
#include <optional>
#include <set>

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include "analysis/check/output_file.h"
#include "analysis/commands/check_command.h"
#include "analysis/commands/exit_status_of.h"
#include "analysis/commands/output_file_option.h"
#include "analysis/commands/unknown_arguments.h"
#include "analysis/compare/compare.h"
#include "analysis/run_set.h"
#include "harness/error.h"
#include "harness/exit_status.h"

namespace railgauge::analysis {
namespace {

struct CompareCommandOptions {
  std::vector<std::string> runs, labels, ignore_params;
  std::optional<std::string> metric, json, markdown;
  std::string format = "table";
  bool match_device = false;
  bool all_points = false;
  double single_sample_tolerance_percent = 100 * compare::kSingleSampleTolerance;
};

// The last path component, or A, B, C... when two runs would share a name.
std::vector<std::string> default_labels(const std::vector<std::string> &runs) {
  std::vector<std::string> labels;
  std::set<std::string> seen;
  bool clash = false;
  for (const auto &r : runs) {
    auto name = std::filesystem::path(r).lexically_normal().filename().string();
    if (name.empty())
      name = std::filesystem::path(r).lexically_normal().parent_path().filename().string();
    clash = clash || !seen.insert(name).second;
    labels.push_back(name);
  }
  if (clash)
    for (std::size_t i = 0; i < labels.size(); ++i)
      labels[i] = std::string(1, static_cast<char>('A' + i % 26));
  return labels;
}

int run_compare(const CLI::App &cmd, const CompareCommandOptions &o) {
  refuse_unknown_arguments(cmd, "compare");
  if (o.format != "table" && o.format != "markdown" && o.format != "json")
    throw InputError(fmt::format("unknown format '{}'", o.format), "--format",
                     "use table, markdown or json");
  if (o.runs.size() < 2)
    throw InputError("compare needs at least two runs", "compare",
                     "give two or more run directories: railgauge compare RUN_A RUN_B");
  std::vector<RunSet> inputs;
  for (const auto &r : o.runs)
    inputs.push_back(load_runs({r}));
  compare::CompareOptions options;
  options.metric = o.metric;
  // The table's metric column names a metric without its "metrics." (tflops): read as one.
  if (options.metric && !options.metric->empty() && !options.metric->starts_with("metrics.") &&
      !options.metric->starts_with("params."))
    options.metric = "metrics." + *options.metric;
  options.match_device = o.match_device;
  options.single_sample_tolerance = o.single_sample_tolerance_percent / 100;
  for (const auto &p : o.ignore_params)
    options.ignore_params.push_back(p);
  const auto c = compare::compare_runs(
      std::move(inputs), o.labels.empty() ? default_labels(o.runs) : o.labels, options);
  const std::size_t most_per_key = o.all_points ? 0 : compare::kMostRowsPerKey;
  if (o.format == "json")
    std::cout << compare::to_json(c).dump(2) << '\n';
  else if (o.format == "markdown")
    std::cout << compare::render_markdown(c, most_per_key);
  else
    std::cout << compare::render_table(c, most_per_key);
  if (o.json)
    write_output_file(*o.json, compare::to_json(c).dump(2) + "\n", "--json");
  if (o.markdown)
    write_output_file(*o.markdown, compare::render_markdown(c, most_per_key), "--markdown");
  return 0;
}

} // namespace

void add_compare_command(CLI::App &app, int &exit_code) {
  auto o = std::make_shared<CompareCommandOptions>();
  auto *cmd = app.add_subcommand(
      "compare", "Runs side by side: per point each run's value, the ratio to the first run and "
                 "whether it exceeds the noise; a summary per family.\n"
                 "Exit status: 0 compared, 3 crashed, 4 input error.");
  cmd->add_option("runs", o->runs,
                  "Two or more inputs, each a run directory or a directory of runs (a cluster)");
  cmd->add_option("--label", o->labels,
                  "A name per input, in order (e.g. --label ib --label roce)");
  cmd->add_option("--metric", o->metric,
                  "Compare this metric path for every point (default: busbw, bandwidth, "
                  "TFLOP/s, latency or time, whichever the record has)");
  cmd->add_flag("--match-device", o->match_device,
                "Match points by host and device too (the same machine before and after)");
  cmd->add_option("--ignore-param", o->ignore_params,
                  "Also ignore this param when matching (passes_per_call, threads_used, "
                  "total_bytes, gpu and rank are always ignored)");
  cmd->add_option("--single-sample-tolerance", o->single_sample_tolerance_percent,
                  "Where a side is one sample (no spread: an nccl-tests text log, a perftest "
                  "bandwidth line), call a difference beyond this many percent better or worse "
                  "(SuperBench's quick-scan threshold)")
      ->capture_default_str();
  cmd->add_option("--format", o->format, "Standard output: table, markdown or json")
      ->capture_default_str();
  cmd->add_flag("--all-points", o->all_points,
                fmt::format("List every point of the table and markdown; without it a key of "
                            "more than {} points (a fleet's node pairs) lists its {} worst and "
                            "counts the rest by verdict (the JSON always holds every point)",
                            compare::kMostRowsPerKey, compare::kMostRowsPerKey));
  cmd->add_option("--json", o->json, "Also write the comparison as JSON (for railgauge report)")
      ->check(output_file_check("--format json for standard output"));
  cmd->add_option("--markdown", o->markdown, "Also write the comparison as markdown")
      ->check(output_file_check("--format markdown for standard output"));
  cmd->allow_extras();
  cmd->callback(
      [cmd, o, &exit_code] { exit_code = exit_status_of([&] { return run_compare(*cmd, *o); }); });
}

} // namespace railgauge::analysis
