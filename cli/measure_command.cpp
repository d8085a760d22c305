#include "cli/measure_command.h"

#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <map>
#include <optional>
#include <unistd.h>
#include <utility>

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include "cli/printers.h"
#include "cli/ranks_end.h"
#include "cli/run_ingest.h"
#include "cli/seconds_option.h"
#include "gemm/layer_table.h"
#include "gemm/tp_table.h"
#include "harness/cpu_contention.h"
#include "harness/cuda/device.h"
#include "harness/data_paths.h"
#include "harness/error.h"
#include "harness/exit_status.h"
#include "harness/expectations.h"
#include "harness/interrupt_watch.h"
#include "harness/inventory/inventory.h"
#include "harness/inventory/inventory_fields.h"
#include "harness/launch.h"
#include "harness/manifest.h"
#include "harness/record_io.h"
#include "harness/resume.h"
#include "harness/run_failure.h"
#include "harness/run_fields.h"
#include "harness/runner.h"
#include "harness/watchdog.h"
#include "memory/bandwidth_table.h"

namespace railgauge {

namespace fs = std::filesystem;

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
      "A measurement setting NAME=VALUE: time_budget_s, max_rel_noise, noise_bound (the most "
      "noise, the half-width of its samples' p10..p90 over their median, an ok point may end "
      "with before the run exits 1; 0: none), noise_retries (how many times a point past "
      "noise_bound is measured again, in a run of one rank, before it counts; 0: none), "
      "min_samples, "
      "max_samples, warmup_runs, warmup_s (seconds of untimed load first, for a GPU to "
      "reach its power and thermal steady state), settle_max_s (a GPU point's most untimed "
      "seconds waiting for its clocks and power to settle), gpu_min_timed_s (a GPU point's "
      "least timed span, default 0.2 s, whatever the noise rule says; 0: off), min_sample_s, "
      "batch (calls per sample, fixed; 0 sizes it from min_sample_s)");
  cmd.add_flag("--no-verify", o.no_verify, "Skip the data check after each point");
  cmd.add_flag("-q,--quiet", o.quiet, "No progress line and no table");
  cmd.add_option("--progress-every", o.progress_every_s,
                 "When stderr is not a terminal (a batch job's log): a progress line every this "
                 "many seconds, with points done of planned and the time left at that pace "
                 "(0: none)")
      ->capture_default_str();
  cmd.add_option("--expect", o.expect,
                 "The hardware this node must have, e.g. gpus=8,nics=8 (usable CUDA devices, "
                 "RDMA devices): when it has fewer, the run is refused before its first point "
                 "(run.json status refused, exit status 2: a node to drain) instead of passing "
                 "on waivers");
  cmd.add_option("--resume", o.resume_dir,
                 "Continue the interrupted run in this run directory (same command otherwise): "
                 "points already recorded are skipped, new records are appended");
  cmd.add_flag("--retry-errors", o.retry_errors,
               "With --resume: run the points recorded as `error` again");
  cmd.add_flag("--force", o.force, "With --resume: resume a run that run.json calls complete");
  cmd.add_option("--point-timeout", o.point_timeout_s,
                 "Seconds a point may run before it is recorded as `error` and the run stops "
                 "(exit 5; a hung GPU kernel cannot be cancelled); 0: no limit")
      ->capture_default_str()
      ->check(seconds_check(true, "--point-timeout 600, or 0 for no limit"));
  cmd.add_option("--store", o.store_url,
                 "Where the ranks of a multi-rank run meet (docs/launch.md): tcp://HOST:PORT (rank "
                 "0 listens there; also RAILGAUGE_STORE), mpi or mpi://HOST (under mpirun; the "
                 "default there)");
  cmd.add_option("--store-timeout", o.store_timeout_s,
                 "Seconds a rank waits for another rank (at the start and end of the run, and "
                 "inside multi-rank points: a pair's peer) before it names the ones missing")
      ->capture_default_str()
      ->check(seconds_check(false, "--store-timeout 60"));
  add_run_db_options(cmd, o.db);
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

namespace {

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

// --expect: what this node must have against what it has, in run.json ("expect"); each
// shortfall is said now. Empty when nothing is expected or all of it is there.
std::vector<std::string> unmet_here(const std::map<std::string, int> &expected,
                                    Manifest &manifest) {
  if (expected.empty())
    return {};
  const int gpus = gpu::cuda_device_count();
  const auto found = found_hardware(gpus, manifest.data()[inventory_field::kInventory]);
  auto unmet = unmet_expectations(expected, found);
  // The commonest reason a node shows no GPU is the driver: say it beside the count.
  if (gpus == 0)
    if (const auto why = gpu::cuda_unavailable_reason())
      for (auto &u : unmet)
        if (u.starts_with("gpus:"))
          u += fmt::format(" ({})", *why);
  manifest.data()[run_field::kExpect] = {{run_field::kExpectExpected, expected},
                                         {run_field::kExpectFound, found},
                                         {run_field::kExpectUnmet, unmet}};
  manifest.write();
  for (const auto &u : unmet)
    std::cerr << fmt::format("railgauge: expectation not met: {} (what this node must have, by "
                             "--expect or the command itself: the run is refused before its "
                             "first point, exit status 2)\n",
                             u);
  return unmet;
}

// A node short of what --expect names refuses the run before its first point, and so does every
// other rank (harness/launch.h, World::say_refused): run.json says "refused" with the reason,
// and the reason is the last line, where a batch log is read. Called at the start barrier.
std::optional<std::string> refuse_if_unmet(const std::vector<std::string> &unmet, World &world,
                                           Manifest &manifest, const std::string &run_dir,
                                           const std::string &records_path) {
  if (!unmet.empty()) {
    std::string why;
    for (const auto &u : unmet)
      why += (why.empty() ? "" : "; ") + u;
    world.say_refused(why + " (expected hardware)");
  }
  world.barrier("start");
  const auto why = world.refused_anywhere();
  if (why) {
    mark_run_refused(manifest, *why, count_records(records_path));
    std::cerr << fmt::format("railgauge: refused: {}; no point ran (run.json says refused: {})\n",
                             *why, run_dir);
  }
  return why;
}

// --resume: the same directory, manifest and records file, checked against this plan.
void reopen_for_resume(const CommonOptions &o, const std::vector<std::string> &argv,
                       const nlohmann::json &suite_info, const RunPlan &plan,
                       const std::string &host, int rank, World &world, Milliseconds store_timeout,
                       std::optional<RunDirLock> &lock, std::optional<ResumeState> &resume,
                       std::optional<Manifest> &manifest) {
  const std::string resume_dir = resume_directory(*o.resume_dir, rank);
  manifest.emplace(Manifest::load(resume_dir));
  lock.emplace(resume_dir);
  resume.emplace(resume_dir, manifest->data(), plan, suite_info, host, rank,
                 ResumeOptions{o.force, o.retry_errors});
  if (world.world_size() > 1)
    resume->agree_with_other_ranks(*world.store(), world.world_size(), store_timeout);
  for (const auto &note : resume->notes())
    std::cerr << "railgauge: note: " << note << '\n';
  mark_resumed(*manifest, argv, *resume, plan.point_count());
  manifest->write();
}

// A new run's run.json: the command, suite, plan, world and inventory, before any point.
void start_manifest(std::optional<Manifest> &manifest, const RunIdentity &id,
                    const std::vector<std::string> &argv, const nlohmann::json &suite_info,
                    const RunPlan &plan, const World &world) {
  manifest.emplace(id, argv);
  manifest->data()[run_field::kSuite] = suite_info;
  manifest->data()[run_field::kPointsPlanned] = plan.point_count();
  manifest->data()[run_field::kPlan] = plan_summary(plan);
  manifest->data()[run_field::kWorld] = world.describe();
  InventoryOptions inventory_options;
  manifest->data()[inventory_field::kInventory] = collect_inventory(inventory_options);
  manifest->write();
}

void add_printers(PrinterMultiplex &printer, OutputFormat format, const CommonOptions &o,
                  const RunIdentity &id, const std::vector<NoisyPoint> &noisy) {
  if (format == OutputFormat::jsonl)
    printer.add(make_jsonl_printer(std::cout));
  else if (format == OutputFormat::csv)
    printer.add(make_csv_printer(std::cout));
  else if (!o.quiet && id.rank == 0) {
    // Under a launcher only rank 0 prints the summary: every rank still writes its records, and
    // a job log of N ranks does not hold N copies of the table.
    printer.add(make_table_printer(std::cout, &noisy));
    // Each family's curve after the summary: bandwidth per size per kernel, and efficiency
    // (or TFLOP/s) per GEMM per TP degree t.
    printer.add(make_collecting_printer([](const std::vector<Record> &records) {
      std::cout << memory::render_bandwidth_table(records) << gemm::render_tp_table(records)
                << gemm::render_layer_table(records);
    }));
  }
}

// What a run that stops early says: where its records are and the exact command that continues
// it (this one, with --resume DIR unless it has it).
std::string resume_hint_text(const std::vector<std::string> &argv, bool resuming,
                             const World &world, const RunIdentity &id, const RecordFile &records) {
  std::string resume_command;
  for (const auto &arg : argv)
    resume_command += (resume_command.empty() ? "" : " ") + arg;
  // Several ranks resume from the run's root: the same command on every rank.
  if (!resuming)
    resume_command +=
        " --resume " + (world.world_size() > 1 ? fs::path(id.dir).parent_path().string() : id.dir);
  return fmt::format("the records written so far are intact in {}; continue with: {}",
                     records.path(), resume_command);
}

// Every point of the plan; the records per status.
std::map<std::string, int> run_points(const RunPlan &plan, RunContext &ctx, const RunIdentity &id,
                                      const RunnerOutput &output, Manifest &manifest,
                                      const RecordFile &records, const std::string &resume_hint) {
  try {
    return execute_plan(plan, ctx, id, output);
  } catch (const std::exception &e) {
    // The records file cannot be written (disk full, directory removed): stop, keep what is
    // there, say so in run.json when that can still be written.
    mark_run_failed(manifest, e.what(), count_records(records.path()));
    throw BackendError(fmt::format("{}\n  {}", e.what(),
                                   fs::exists(records.path())
                                       ? resume_hint
                                       : fmt::format("{} is gone: its records are lost", id.dir)));
  }
}

// A run cut short (SIGTERM at a job's time limit, a hung point, a lost rank) is not stored in
// the fleet history: said, so that a history without it is never taken for one that holds it.
void say_run_not_stored(const std::string &db_url, const std::string &run_dir) {
  if (!db_url.empty())
    std::cerr << fmt::format("railgauge: --db: run {} ended before it was whole and is not stored "
                             "in the fleet history; --resume stores it once whole, or railgauge "
                             "db ingest stores what it holds\n",
                             run_dir)
              << std::flush;
}

std::vector<AxisOverride> parse_overrides(const CommonOptions &o) {
  std::vector<AxisOverride> overrides;
  for (const auto &a : o.axes)
    overrides.push_back(parse_axis_override(a));
  return overrides;
}

void check_resume_flags(const CommonOptions &o) {
  if (!o.resume_dir && (o.force || o.retry_errors))
    throw InputError("--force and --retry-errors only go with --resume",
                     o.force ? "--force" : "--retry-errors", "add --resume RUN_DIR, or drop them");
}

// Where the pair matrices' coverage ledger lives: beside the run, and with --db in the history.
void fill_ledger(rdma::LedgerPlace &ledger, const std::string &run_dir, const CommonOptions &o,
                 const std::string &db_url) {
  ledger.run_dir = run_dir;
  if (!db_url.empty())
    ledger.stored = stored_ledger(o.db, db_url);
}

// The ranks start together; one that never comes is named (and this rank's run.json says so).
// True when this node lacks what it must have. SIGTERM while waiting (Slurm's time limit, a
// launcher ending the job) ends the run interrupted, exit 5, as it does between points: it once
// ended by the signal's default action, 143, run.json still "running".
bool refused_at_start(const std::vector<std::string> &unmet, World &world, Manifest &manifest,
                      const std::string &run_dir, const std::string &records_path,
                      const std::string &resume_hint) {
  const InterruptWatch at_the_start(
      [&](int signo) { end_interrupted_run(manifest, nullptr, signo, records_path, resume_hint); });
  try {
    // A node without the hardware it must have is a failed node (drain it), not a run with
    // problems: a missing GPU is the commonest fault a burn-in meets.
    return refuse_if_unmet(unmet, world, manifest, run_dir, records_path).has_value();
  } catch (const BackendError &e) {
    name_lost_ranks(world, manifest, e);
    // A resumed run keeps the counts of the records it holds.
    mark_run_failed(manifest, e.what(), count_records(records_path));
    throw;
  }
}

// The kernel's CPU accounting and the clock as the first point starts.
struct ContentionStart {
  std::optional<CpuTimes> cpu;
  std::chrono::steady_clock::time_point at;
};

// How busy other work kept the machine while the points ran, into run.json (cpu_contention):
// what a noisy point's reader needs first. Read as this rank's points end, before the ranks wait
// for each other (the peers' last points are not this window's).
std::string record_contention(Manifest &manifest, const ContentionStart &start,
                              bool several_ranks) {
  const double wall_s =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start.at).count();
  const auto contention = cpu_contention(start.cpu, read_cpu_times(), wall_s,
                                         static_cast<int>(::sysconf(_SC_NPROCESSORS_ONLN)));
  if (!contention)
    return "";
  manifest.data()[run_field::kCpuContention] = contention->to_json();
  manifest.write();
  return contention->text(several_ranks);
}

// The exit status of a run whose points all ran, stored in the fleet history with --db.
int finished_run_status(const CommonOptions &o, const std::map<std::string, int> &counts,
                        const std::vector<NoisyPoint> &noisy, const std::string &db_url,
                        const std::string &run_dir, const std::string &contention) {
  if (!o.quiet)
    std::cerr << fmt::format("run directory: {}\n", run_dir);
  // A noisy point is said whatever the output format, as the exit status it sets needs a reason.
  if (!noisy.empty())
    std::cerr << noisy_points_line(noisy, contention) << '\n';
  const bool bad = counts.count("failed") || counts.count("error") || !noisy.empty();
  const int status = code(bad ? ExitStatus::problems : ExitStatus::ok);
  // Stored once whole: a run cut short is not (its --resume is, under the same run id).
  return db_url.empty() ? status : ingest_finished_run(o.db, db_url, run_dir, status);
}

} // namespace

int measure_entries(Registry &&benchmarks, std::vector<SuiteEntry> entries, const CommonOptions &o,
                    const std::vector<std::string> &argv, const nlohmann::json &suite_info,
                    rdma::LedgerPlace *ledger) {
  const auto format = parse_output_format(o.format, "--format");
  // A typo in --expect or a --db URL that could never be used stops the run before it has a
  // directory.
  const auto expected = parse_expectations(o.expect, "--expect");
  const auto db_url = run_db_url(o.db);
  const std::vector<AxisOverride> overrides = parse_overrides(o);
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

  check_resume_flags(o);
  // --resume: the same directory, manifest and records file, checked against this plan.
  std::optional<RunDirLock> lock;
  std::optional<ResumeState> resume;
  std::optional<Manifest> manifest;
  if (o.resume_dir)
    reopen_for_resume(o, argv, suite_info, plan, host, ctx.rank(), world, store_timeout, lock,
                      resume, manifest);
  const RunIdentity id = resume ? resume->id() : world.create_run_directory(o.out_dir);
  if (ledger)
    fill_ledger(*ledger, id.dir, o, db_url);
  if (!lock)
    lock.emplace(id.dir);
  RecordFile records(id.dir + "/records.jsonl");
  if (!manifest)
    start_manifest(manifest, id, argv, suite_info, plan, world);

  PrinterMultiplex printer;
  std::vector<NoisyPoint> noisy;
  add_printers(printer, format, o, id, noisy);
  const bool progress = !o.quiet && id.rank == 0 && ::isatty(STDERR_FILENO);
  RunnerOutput output{records, printer, progress};
  output.noisy = &noisy;
  if (resume) {
    output.skip = [&](std::string_view key, const Point &point) {
      return resume->skip(key, point);
    };
    if (!o.quiet)
      std::cerr << fmt::format("resuming {}: {} of {} points already recorded\n", id.dir,
                               resume->skipped_points(), plan.point_count());
  }
  const std::string resume_hint = resume_hint_text(argv, resume.has_value(), world, id, records);
  output.point_timeout_s = o.point_timeout_s;
  const auto say_not_stored = [&] { say_run_not_stored(db_url, id.dir); };
  output.on_point_hung = [&](const Record &hung) {
    say_not_stored();
    end_hung_run(*manifest, hung, records.path(), resume_hint);
  };
  output.on_interrupt = [&](const Record *point, int signo) {
    say_not_stored();
    end_interrupted_run(*manifest, point, signo, records.path(), resume_hint);
  };
  const std::vector<std::string> unmet = unmet_here(expected, *manifest);
  // A batch job's log gets a line every 30 s instead of the terminal's progress line.
  if (!o.quiet && id.rank == 0 && !::isatty(STDERR_FILENO))
    output.log_progress_every_s = o.progress_every_s;
  // Where the records go, before the first point: a job that is cut short still said it.
  if (!o.quiet)
    std::cerr << fmt::format("railgauge: run directory {}\n", id.dir);
  if (refused_at_start(unmet, world, *manifest, id.dir, records.path(), resume_hint))
    return code(ExitStatus::fail);
  std::string stopped_early;
  output.stopped_early = &stopped_early;
  std::map<std::string, int> counts;
  const ContentionStart contention_start{read_cpu_times(), std::chrono::steady_clock::now()};
  std::string contention;
  try {
    counts = run_points(plan, ctx, id, output, *manifest, records, resume_hint);
    contention = record_contention(*manifest, contention_start, world.world_size() > 1);
    if (resume)
      for (const auto &[status, n] : resume->kept_counts())
        counts[status] += n;
    printer.finish();
    end_together(world, *manifest, counts, plan, stopped_early, resume_hint);
  } catch (...) {
    say_not_stored();
    throw;
  }
  return finished_run_status(o, counts, noisy, db_url, id.dir, contention);
}

} // namespace railgauge
