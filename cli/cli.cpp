#include "cli/cli.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <optional>
#include <set>
#include <unistd.h>
#include <utility>

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include "cli/analysis_commands.h"
#include "cli/make_registry.h"
#include "cli/printers.h"
#include "gemm/tp_table.h"
#include "harness/cuda/device.h"
#include "harness/data_paths.h"
#include "harness/error.h"
#include "harness/exit_status.h"
#include "harness/expectations.h"
#include "harness/inventory/inventory.h"
#include "harness/launch.h"
#include "harness/manifest.h"
#include "harness/record_io.h"
#include "harness/registry.h"
#include "harness/resume.h"
#include "harness/run_failure.h"
#include "harness/runner.h"
#include "harness/suite.h"
#include "memory/bandwidth_table.h"
#include "railgauge/config.h"
#include "records/gemm_record.h"

namespace railgauge {
namespace {

// --groups tp=8,pp=4,dp=rest as axes: the spec with '+' between groups (',' separates an axis's
// values) and, unless -a group_type was given, each of its group types as a value.
void add_group_axes(const std::string &spec, std::vector<std::string> &axes) {
  std::string joined = spec, types;
  std::replace(joined.begin(), joined.end(), ',', '+');
  std::string_view rest = joined;
  while (!rest.empty()) {
    const auto part = rest.substr(0, rest.find('+'));
    types += (types.empty() ? "" : ",") + std::string(part.substr(0, part.find('=')));
    rest.remove_prefix(std::min(rest.size(), part.size() + 1));
  }
  axes.push_back("groups=" + joined);
  const bool typed = std::any_of(axes.begin(), axes.end(),
                                 [](const std::string &a) { return a.starts_with("group_type="); });
  if (!typed)
    axes.push_back("group_type=" + types);
}

namespace fs = std::filesystem;

constexpr const char *kFamilies[] = {"memory", "gemm", "offload", "rdma", "collectives", "block"};

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
};

void add_common_options(CLI::App &cmd, CommonOptions &o) {
  cmd.add_option("--out", o.out_dir, "Directory that receives the run directory <out>/<run-id>/")
      ->capture_default_str();
  cmd.add_option("--filter", o.filter, "Run only the benchmarks whose key matches this glob");
  cmd.add_option("-a,--axis", o.axes,
                 "Override an axis: NAME=VALUES, e.g. -a size_bytes=4KiB:1GiB:*2 -a threads=1,2");
  cmd.add_option("--format", o.format, "Console output: table (summary at the end), jsonl, csv")
      ->capture_default_str();
  cmd.add_option("--time-budget", o.time_budget_s, "Seconds of sampling per point (stopping rule)");
  cmd.add_option(
      "--measure", o.measure,
      "A measurement setting NAME=VALUE: time_budget_s, max_rel_noise, min_samples, "
      "max_samples, warmup_runs, warmup_s (seconds of untimed load first, for a GPU to "
      "reach its power and thermal steady state), min_sample_s, batch (calls per sample, fixed; 0 "
      "sizes it from min_sample_s)");
  cmd.add_flag("--no-verify", o.no_verify, "Skip the data check after each point");
  cmd.add_flag("-q,--quiet", o.quiet, "No progress line and no table");
  cmd.add_option("--progress-every", o.progress_every_s,
                 "When stderr is not a terminal (a batch job's log): a progress line every this "
                 "many seconds, with points done of planned and the time left at that pace "
                 "(0: none)")
      ->capture_default_str();
  cmd.add_option("--expect", o.expect,
                 "The hardware this node must have, e.g. gpus=8,nics=8 (usable CUDA devices, "
                 "RDMA devices): when it has fewer, the run says so at the start and ends with "
                 "exit status 1, instead of passing on waivers");
  cmd.add_option("--resume", o.resume_dir,
                 "Continue the interrupted run in this run directory (same command otherwise): "
                 "points already recorded are skipped, new records are appended");
  cmd.add_flag("--retry-errors", o.retry_errors,
               "With --resume: run the points recorded as `error` again");
  cmd.add_flag("--force", o.force, "With --resume: resume a run that run.json calls complete");
  cmd.add_option("--point-timeout", o.point_timeout_s,
                 "Seconds a point may run before it is recorded as `error` and the run stops "
                 "(exit 4; a hung GPU kernel cannot be cancelled); 0: no limit")
      ->capture_default_str()
      ->check(CLI::NonNegativeNumber);
  cmd.add_option("--store", o.store_url,
                 "Where the ranks of a multi-rank run meet (docs/launch.md): tcp://HOST:PORT (rank "
                 "0 listens there; also RAILGAUGE_STORE), mpi or mpi://HOST (under mpirun; the "
                 "default there)");
  cmd.add_option("--store-timeout", o.store_timeout_s,
                 "Seconds a rank waits for another rank (at the start and end of the run, and "
                 "inside multi-rank points: a pair's peer) before it names the ones missing")
      ->capture_default_str()
      ->check(CLI::PositiveNumber);
}

std::vector<std::string> suite_dirs(const std::optional<std::string> &extra) {
  std::vector<std::string> dirs;
  if (extra)
    dirs.push_back(*extra);
  if (const char *env = std::getenv("RAILGAUGE_SUITES"))
    dirs.emplace_back(env);
  dirs.push_back((data_dir() / "suites").string());
  return dirs;
}

MeasureSpec apply_measure_flags(MeasureSpec spec, const CommonOptions &o) {
  for (const auto &setting : o.measure) {
    const auto eq = setting.find('=');
    if (eq == std::string::npos)
      throw InputError(fmt::format("bad measurement setting '{}'", setting), "--measure",
                       "write NAME=VALUE, e.g. --measure max_rel_noise=0.01");
    apply_measure_setting(spec, setting.substr(0, eq), setting.substr(eq + 1),
                          "--measure " + setting);
  }
  if (o.time_budget_s)
    apply_measure_setting(spec, "time_budget_s", fmt::format("{}", *o.time_budget_s),
                          "--time-budget");
  check_measure_spec(spec, "--measure");
  return spec;
}

// The whole measuring path shared by `run` and the family subcommands: plan (every input error
// surfaces here, before anything runs), create the run directory, write the manifest, run.
int measure_entries(Registry &&benchmarks, std::vector<SuiteEntry> entries, const CommonOptions &o,
                    const std::vector<std::string> &argv, const nlohmann::json &suite_info) {
  const auto format = parse_output_format(o.format, "--format");
  std::vector<AxisOverride> overrides;
  for (const auto &a : o.axes)
    overrides.push_back(parse_axis_override(a));
  for (auto &entry : entries)
    entry.measure = apply_measure_flags(entry.measure, o);

  Topology topology = Topology::load_this_machine();
  GBenchSampler sampler;
  const std::string host = this_host_name();
  // Who this rank is and, with several ranks, the store they meet in (harness/launch.h).
  const Environment env = process_environment();
  const LaunchInfo launch = launch_info_from(env);
  const Milliseconds store_timeout(std::llround(o.store_timeout_s * 1e3));
  World world(launch, {o.store_url, store_timeout}, env, host);
  // The benchmarks are owned here, after the World, so they are destroyed before it: an MPI
  // family whose watchdog found a dead rank aborts the job (MPI_Abort) before the World's MPI
  // runtime could call MPI_Finalize, which would wait for the dead rank (or leave mpirun
  // waiting for it).
  const Registry registry = std::move(benchmarks);
  RunContext ctx(topology, sampler, host, launch.rank);
  ctx.set_world(world.world_size(), world.store(), store_timeout);
  ctx.set_verify(!o.no_verify);
  const RunPlan plan = make_plan(registry, entries, overrides, o.filter, ctx);

  if (!o.resume_dir && (o.force || o.retry_errors))
    throw InputError("--force and --retry-errors only go with --resume",
                     o.force ? "--force" : "--retry-errors", "add --resume RUN_DIR, or drop them");
  // --resume: the same directory, manifest and records file, checked against this plan.
  std::optional<RunDirLock> lock;
  std::optional<ResumeState> resume;
  std::optional<Manifest> manifest;
  if (o.resume_dir) {
    const std::string resume_dir = resume_directory(*o.resume_dir, ctx.rank());
    manifest.emplace(Manifest::load(resume_dir));
    lock.emplace(resume_dir);
    resume.emplace(resume_dir, manifest->data(), plan, suite_info, host, ctx.rank(),
                   ResumeOptions{o.force, o.retry_errors});
    if (world.world_size() > 1)
      resume->agree_with_other_ranks(*world.store(), world.world_size(), store_timeout);
    for (const auto &note : resume->notes())
      std::cerr << "railgauge: note: " << note << '\n';
    mark_resumed(*manifest, argv, *resume, plan.point_count());
    manifest->write();
  }
  const RunIdentity id = resume ? resume->id() : world.create_run_directory(o.out_dir);
  if (!lock)
    lock.emplace(id.dir);
  RecordFile records(id.dir + "/records.jsonl");
  if (!manifest) {
    manifest.emplace(id, argv);
    manifest->data()["suite"] = suite_info;
    manifest->data()["points_planned"] = plan.point_count();
    manifest->data()["plan"] = plan_summary(plan);
    manifest->data()["world"] = world.describe();
    InventoryOptions inventory_options;
    manifest->data()["inventory"] = collect_inventory(inventory_options);
    manifest->write();
  }

  PrinterMultiplex printer;
  if (format == OutputFormat::jsonl)
    printer.add(make_jsonl_printer(std::cout));
  else if (format == OutputFormat::csv)
    printer.add(make_csv_printer(std::cout));
  else if (!o.quiet && id.rank == 0) {
    // Under a launcher only rank 0 prints the summary: every rank still writes its records, and
    // a job log of N ranks does not hold N copies of the table.
    printer.add(make_table_printer(std::cout));
    // Each family's curve after the summary: bandwidth per size per kernel, and efficiency
    // (or TFLOP/s) per GEMM per TP degree t.
    printer.add(make_collecting_printer([](const std::vector<Record> &records) {
      std::cout << memory::render_bandwidth_table(records) << gemm::render_tp_table(records);
    }));
  }
  const bool progress = !o.quiet && id.rank == 0 && ::isatty(STDERR_FILENO);
  RunnerOutput output{records, printer, progress};
  if (resume) {
    output.skip = [&](std::string_view key, const Point &point) {
      return resume->skip(key, point);
    };
    if (!o.quiet)
      std::cerr << fmt::format("resuming {}: {} of {} points already recorded\n", id.dir,
                               resume->skipped_points(), plan.point_count());
  }
  // The exact command that continues the run: this one, with --resume DIR unless it has it.
  std::string resume_command;
  for (const auto &arg : argv)
    resume_command += (resume_command.empty() ? "" : " ") + arg;
  if (!resume)
    resume_command += " --resume " + id.dir;
  const auto resume_hint =
      fmt::format("the records written so far are intact in {}; continue with: {}", records.path(),
                  resume_command);
  output.point_timeout_s = o.point_timeout_s;
  output.on_point_hung = [&](const Record &hung) {
    end_hung_run(*manifest, hung, records.path(), resume_hint);
  };
  output.on_interrupt = [&](const Record *point, int signo) {
    end_interrupted_run(*manifest, point, signo, records.path(), resume_hint);
  };
  // --expect: hardware the node must have; what is missing is said now and fails the run.
  const auto expected = parse_expectations(o.expect, "--expect");
  std::vector<std::string> unmet;
  if (!expected.empty()) {
    const auto found = found_hardware(gpu::cuda_device_count(), manifest->data()["inventory"]);
    unmet = unmet_expectations(expected, found);
    manifest->data()["expect"] = {{"expected", expected}, {"found", found}, {"unmet", unmet}};
    manifest->write();
    for (const auto &u : unmet)
      std::cerr << fmt::format("railgauge: expectation not met: {} (the points that need it are "
                               "waived; the run ends with exit status 1)\n",
                               u);
  }
  // A batch job's log gets a line every 30 s instead of the terminal's progress line.
  if (!o.quiet && id.rank == 0 && !::isatty(STDERR_FILENO))
    output.log_progress_every_s = o.progress_every_s;
  // Where the records go, before the first point: a job that is cut short still said it.
  if (!o.quiet)
    std::cerr << fmt::format("railgauge: run directory {}\n", id.dir);
  // The ranks start together; one that never comes is named (and this rank's run.json says so).
  try {
    world.barrier("start");
  } catch (const BackendError &e) {
    mark_run_failed(*manifest, e.what(), {});
    throw;
  }
  std::map<std::string, int> counts;
  try {
    counts = execute_plan(plan, ctx, id, output);
  } catch (const std::exception &e) {
    // The records file cannot be written (disk full, directory removed): stop, keep what is
    // there, say so in run.json when that can still be written.
    mark_run_failed(*manifest, e.what(), count_records(records.path()));
    throw BackendError(fmt::format("{}\n  {}", e.what(),
                                   fs::exists(records.path())
                                       ? resume_hint
                                       : fmt::format("{} is gone: its records are lost", id.dir)));
  }
  if (resume)
    for (const auto &[status, n] : resume->kept_counts())
      counts[status] += n;
  printer.finish();
  manifest->finish("complete", counts);
  // And end together: rank 0 serves the store, so it stays until every rank is done with it.
  try {
    world.barrier("end");
  } catch (const BackendError &e) {
    mark_run_failed(*manifest, e.what(), counts);
    throw;
  }
  if (!o.quiet)
    std::cerr << fmt::format("run directory: {}\n", id.dir);
  const bool bad = counts.count("failed") || counts.count("error") || !unmet.empty();
  return code(bad ? ExitStatus::problems : ExitStatus::ok);
}

int list_benchmarks(const Registry &registry, const std::string &format,
                    const std::optional<std::string> &filter) {
  Topology topology = Topology::load_this_machine();
  GBenchSampler sampler;
  RunContext ctx(topology, sampler, this_host_name(), 0);
  nlohmann::json out = nlohmann::json::array();
  std::string text = "Benchmarks: key, whether its first default point can run on this machine "
                     "(or why not), description, and axes with the number of values each takes "
                     "here by default\n";
  const auto benches = filter ? registry.select(*filter, "--filter") : registry.all();
  for (auto *b : benches) {
    nlohmann::json axes = nlohmann::json::array();
    Point first;
    std::string axes_text;
    for (const auto &axis : b->axes()) {
      const auto values = b->defaults_here(axis, ctx);
      nlohmann::json defaults = nlohmann::json::array();
      for (const auto &v : values)
        defaults.push_back(to_json(v));
      if (!values.empty())
        first.set(axis.name, values.front());
      axes.push_back({{"name", axis.name},
                      {"type", std::string(to_string(axis.type))},
                      {"help", axis.help},
                      {"defaults_here", defaults},
                      {"choices", axis.choices}});
      axes_text +=
          fmt::format("    {} ({}, {} value{} here): {}\n", axis.name, to_string(axis.type),
                      values.size(), values.size() == 1 ? "" : "s", axis.help);
    }
    const auto why = b->supported(ctx, first);
    out.push_back({{"key", b->key()},
                   {"description", b->description()},
                   {"axes", axes},
                   {"runs_here", !why.has_value()},
                   {"waive_reason", why ? nlohmann::json(*why) : nlohmann::json(nullptr)}});
    text += fmt::format("\n{}  [{}]\n  {}\n{}", b->key(),
                        why ? "waived here: " + *why : "runs here", b->description(), axes_text);
  }
  text += fmt::format("\nSuites, rules and GPU peaks are read from {} ({}).\n", data_dir().string(),
                      data_dir_origin());
  if (format == "json")
    std::cout << out.dump(2) << '\n';
  else
    std::cout << text;
  return 0;
}

int show_inventory(const std::optional<std::string> &topology_file, const std::string &format) {
  InventoryOptions options;
  options.topology_file = topology_file;
  const auto inventory = collect_inventory(options);
  if (format == "json") {
    std::cout << inventory.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) << '\n';
    for (const auto &w : inventory["warnings"]) // the table shows them at its top
      std::cerr << "railgauge: warning: " << w.get<std::string>() << '\n';
  } else {
    std::cout << render_inventory_text(inventory);
  }
  return 0;
}

int dispatch(int argc, char **argv) {
  Registry registry = make_registry();
  const std::vector<std::string> args(argv, argv + argc);

  CLI::App app{"railgauge: microbenchmarks and fabric validation for GPU training clusters.\n"
               "Records go to <out>/<run-id>/records.jsonl (one JSON object per point) with\n"
               "the manifest run.json beside them. GB = 1e9 bytes, Gb = 1e9 bits."};
  app.require_subcommand(1);
  app.footer(std::string(kExitStatusHelp));
  app.set_version_flag("--version",
                       fmt::format("railgauge {} ({})", RAILGAUGE_VERSION,
                                   *RAILGAUGE_CUDA_TOOLKIT_VERSION
                                       ? fmt::format("CUDA {}", RAILGAUGE_CUDA_TOOLKIT_VERSION)
                                       : std::string("without CUDA")));

  std::string list_format = "table";
  std::optional<std::string> list_filter;
  auto *list =
      app.add_subcommand("list", "Every benchmark key, its axes, and whether it can run here");
  list->add_option("--format", list_format, "table or json")
      ->check(CLI::IsMember({"table", "json"}));
  list->add_option("--filter", list_filter, "Only keys matching this glob");

  std::optional<std::string> topology_file;
  std::string inventory_format = "table";
  auto *inventory = app.add_subcommand(
      "inventory", "This machine's topology, GPUs, NICs and the GPU<->NIC rail map");
  inventory->add_option("--topology", topology_file,
                        "Read the topology from an hwloc XML or an NCCL topology XML file");
  inventory->add_option("--format", inventory_format, "table or json")
      ->check(CLI::IsMember({"table", "json"}));

  CommonOptions run_options;
  std::string suite_name = "node";
  std::optional<std::string> suites_dir;
  auto *run = app.add_subcommand(
      "run", "Run a suite (default: node, every family on whatever this machine has)");
  run->add_option("suite", suite_name, "Suite name (results/suites/NAME.yaml) or YAML path")
      ->capture_default_str();
  run->add_option("--suites-dir", suites_dir, "Also look for suites in this directory");
  add_common_options(*run, run_options);

  // One subcommand per family that has benchmarks: its benchmarks at their default axes.
  std::vector<std::pair<CLI::App *, std::string>> family_cmds;
  CommonOptions family_options;
  // `railgauge gemm --model gpt3-175b --tp 1,2,4,8`: the headline sweep without -a syntax.
  std::optional<std::string> gemm_model, gemm_tp;
  // `railgauge collectives --groups tp=8,pp=4,dp=rest`: each group type alone, commas allowed.
  std::optional<std::string> collective_groups;
  for (const char *family : kFamilies) {
    if (registry.match(std::string(family) + ".*").empty())
      continue;
    auto *cmd = app.add_subcommand(family, fmt::format("Run the {}.* benchmarks", family));
    add_common_options(*cmd, family_options);
    if (std::string_view(family) == "gemm") {
      cmd->add_option("--model", gemm_model,
                      "The GPU TP sweep of this model: --filter gemm.cublaslt -a model=NAME");
      cmd->add_option("--tp", gemm_tp, "With --model: TP degrees, e.g. 1,2,4,8 (-a tp=...)");
    }
    if (std::string_view(family) == "collectives")
      cmd->add_option("--groups", collective_groups,
                      "Group split, fastest-varying first, e.g. tp=8,pp=4,dp=rest: runs each "
                      "group type alone (-a groups=tp=8+pp=4+dp=rest -a group_type=tp,pp,dp; "
                      "add -a group_type=concurrent for all at once)");
    family_cmds.emplace_back(cmd, family);
  }

  // Commands that read run directories run inside parse() and set this.
  int analysis_exit = -1;
  analysis::add_analysis_commands(app, analysis_exit, [] {
    return nlohmann::json{{"host", this_host_name()},
                          {"inventory", collect_inventory(InventoryOptions{})}};
  });

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError &e) {
    return app.exit(e) == 0 ? code(ExitStatus::ok) : code(ExitStatus::bad_input);
  }

  if (analysis_exit >= 0)
    return analysis_exit;
  if (list->parsed())
    return list_benchmarks(registry, list_format, list_filter);
  if (inventory->parsed())
    return show_inventory(topology_file, inventory_format);
  if (run->parsed()) {
    const auto path = find_suite(suite_name, suite_dirs(suites_dir));
    const Suite suite = load_suite_file(path);
    return measure_entries(std::move(registry), suite.entries, run_options, args,
                           {{"name", suite.name}, {"path", path}});
  }
  for (const auto &[cmd, family] : family_cmds) {
    if (cmd->parsed()) {
      SuiteEntry entry;
      entry.key_glob = family + ".*";
      entry.where = family;
      if (gemm_model) {
        family_options.axes.push_back("model=" + *gemm_model);
        if (!family_options.filter)
          family_options.filter = gemm::record::kCublasLt;
      }
      if (gemm_tp)
        family_options.axes.push_back("tp=" + *gemm_tp);
      if (collective_groups)
        add_group_axes(*collective_groups, family_options.axes);
      return measure_entries(std::move(registry), {entry}, family_options, args,
                             {{"name", family}, {"path", nullptr}});
    }
  }
  return code(ExitStatus::bad_input);
}

} // namespace

int run_cli(int argc, char **argv) {
  try {
    return dispatch(argc, argv);
  } catch (const InputError &e) {
    std::cerr << "railgauge: error: " << e.what() << '\n';
    return code(ExitStatus::bad_input);
  } catch (const std::exception &e) {
    std::cerr << "railgauge: failed: " << e.what() << '\n';
    return code(ExitStatus::internal);
  }
}

} // namespace railgauge
