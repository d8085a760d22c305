#include "analysis/commands/check_command.h"

#include <algorithm>
#include <cctype>
#include <chrono>
#include <filesystem>
#include <functional>
#include <iostream>
#include <map>
#include <optional>
#include <utility>

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include "analysis/check/auto_profile.h"
#include "analysis/check/check_output.h"
#include "analysis/check/evaluate.h"
#include "analysis/check/expected_gpus.h"
#include "analysis/check/expected_hosts.h"
#include "analysis/check/host_names.h"
#include "analysis/check/output_file.h"
#include "analysis/commands/check_latest_runs.h"
#include "analysis/commands/db_command.h"
#include "analysis/commands/exit_status_of.h"
#include "analysis/commands/output_file_option.h"
#include "analysis/commands/unknown_arguments.h"
#include "analysis/history/given_runs.h"
#include "analysis/history/history_builtins.h"
#include "analysis/history/history_fleet.h"
#include "analysis/history/history_rules.h"
#include "analysis/history/ingest.h"
#include "analysis/history/storable_text.h"
#include "analysis/history/stored_verdicts.h"
#include "analysis/run_set.h"
#include "harness/data_paths.h"
#include "harness/error.h"
#include "harness/exit_status.h"
#include "harness/run_fields.h"

namespace railgauge::analysis {
namespace {

struct CheckOptions {
  std::string rules;
  std::vector<std::string> runs;
  std::string format = "table";
  std::optional<std::string> json, markdown, junit, prometheus, prometheus_dir, drain;
  std::optional<std::string> unreadable; // fail, warn or info
  std::string expect_hosts;              // the job's nodes, each of which must have left a run
  std::string cut_short;                 // why the job's runs ended before every step ran
  std::optional<int> expect_gpus;        // the GPUs each node must show
  bool latest_per_host = false;
  bool inventory_only = false;
  bool wide = false;        // table lines past 120 columns in full
  history::DbFlags history; // --history URL: each part judged against its past too
};

std::string render(const check::CheckResult &r, const std::string &format, bool wide) {
  if (format == "table")
    return check::render_table(r, wide);
  if (format == "json")
    return check::to_json(r).dump(2) + "\n";
  if (format == "markdown")
    return check::render_markdown(r);
  if (format == "junit")
    return check::render_junit(r);
  if (format == "prometheus")
    return check::render_prometheus(r);
  return check::render_drain(r);
}

std::optional<check::Level> unreadable_level(const std::string &text) {
  for (const auto level : {check::Level::fail, check::Level::warn, check::Level::info})
    if (text == check::to_string(level))
      return level;
  return std::nullopt;
}

// Flags are checked here rather than by CLI11 so that every input error exits with 4, never
// with the 2 that means "fail".
void validate(const CLI::App &cmd, const CheckOptions &o) {
  refuse_unknown_arguments(cmd, "check");
  const bool history_only = !o.history.url.empty() && o.runs.empty() && !o.inventory_only;
  if (o.rules.empty() && !history_only)
    throw InputError("no rules", "--rules",
                     fmt::format("give --rules NAME ({}), auto, or the path of a rules YAML file",
                                 shipped_names("rules")));
  // auto picks the profile from the GPUs the run directories show; the database alone shows
  // none, and judging it without the profile asked for would pass what the profile fails.
  if (history_only && o.rules == "auto")
    throw InputError("--rules auto picks a profile from run directories, and none are given",
                     "--rules",
                     fmt::format("name the fleet's profile ({}) with --history, or give the "
                                 "run directories to pick it from",
                                 shipped_names("rules")));
  if (o.runs.empty() && !o.inventory_only && !history_only)
    throw InputError("no run directories to judge", "check",
                     "give one or more run directories (or directories of runs) after the flags");
  // The GPUs a node has are counted from its run directories' inventories: the database alone
  // passed a node short of GPUs that the same --expect-gpus over its directories drained.
  if (history_only && o.expect_gpus)
    throw InputError("--expect-gpus counts the GPUs that run directories show, and none are given",
                     "--expect-gpus",
                     "give the nodes' newest run directories with --history DB, or leave out "
                     "--expect-gpus");
  if (!o.cut_short.empty() && o.runs.empty())
    throw InputError("--cut-short says why a job's runs ended early, and no run directory is "
                     "given",
                     "--cut-short", "give the job's run directories, or leave out --cut-short");
  if (o.unreadable && !unreadable_level(*o.unreadable))
    throw InputError(fmt::format("unknown level '{}'", *o.unreadable), "--unreadable",
                     "use fail, warn or info");
  for (const char *f : {"table", "json", "markdown", "junit", "prometheus", "drain"})
    if (o.format == f)
      return;
  throw InputError(fmt::format("unknown format '{}'", o.format), "--format",
                   "use table, json, markdown, junit, prometheus or drain");
}

// --inventory-only keeps the rules that read the inventory: the health checks that need no
// measurement, so a judgement takes the time of taking the inventory.
check::RuleSet inventory_rules_only(check::RuleSet rules, const std::string &rules_path) {
  std::erase_if(rules.rules, [](const check::Rule &r) { return !r.from_inventory(); });
  if (rules.rules.empty())
    throw InputError("these rules have no inventory rules to judge", rules_path,
                     "give rules with `inventory:` probes (every shipped profile has them), or "
                     "leave out --inventory-only");
  rules.unjudged_nodes = check::Level::info; // the records are left unread on purpose
  return rules;
}

// The runs judged: those given, or (with --inventory-only and none given) this machine now, as
// one run with its inventory and no records.
RunSet runs_to_judge(const CheckOptions &o, const MachineSnapshot &this_machine) {
  if (!o.runs.empty())
    return load_runs(o.runs, {.refused_runs_are_input = true});
  RunSet set;
  LoadedRun now;
  now.manifest = this_machine();
  now.dir =
      fmt::format("this machine ({}), now", now.manifest.value(run_field::kHost, std::string("?")));
  set.runs.push_back(std::move(now));
  return set;
}

// --rules NAME|FILE, or auto: the burn-in profile of the GPUs the runs show, said on stderr.
std::string rules_to_use(const CheckOptions &o, const RunSet &runs) {
  if (o.rules != "auto")
    return o.rules;
  const auto picked = check::auto_profile(runs, o.expect_gpus);
  std::cerr << fmt::format("railgauge: --rules auto: {} ({})\n", picked.name, picked.why);
  return picked.name;
}

// A host name goes into the drain list (one per line, fed to scontrol) and file names: one
// holding a control character (a newline would make two lines of the drain list, two hosts) or
// longer than a DNS name cannot be written safely, so nothing is, and the name is said, escaped.
// `where` names the input of a host (its run directory, or the database it came from).
void refuse_unsafe_hosts(const check::CheckResult &result,
                         const std::function<std::string(const std::string &)> &where) {
  for (const auto &host : result.hosts())
    if (const auto why = check::host_name_problem(host))
      throw InputError(
          fmt::format("{}: it cannot be written to the drain list or a file name safely", *why),
          where(host), "fix the host name in that run's run.json and records.jsonl");
}

void refuse_unsafe_hosts(const check::CheckResult &result, const RunSet &runs) {
  refuse_unsafe_hosts(result, [&runs](const std::string &host) {
    std::string dir = "?";
    for (const auto &run : runs.runs)
      for (const auto &r : run.records)
        if (r.host == host)
          dir = run.dir;
    return dir;
  });
}

// `DIR/<host>.prom`, one file per host: every byte but letters, digits, '.', '_' and '-' is
// written %XX, '%' too, so two hosts never share a file (rack1/n1 -> rack1%2Fn1, rack1_n1 stays).
std::string prometheus_file_name(const std::string &host) {
  std::string name;
  for (unsigned char c : host)
    name += std::isalnum(c) || c == '.' || c == '_' || c == '-'
                ? std::string(1, static_cast<char>(c))
                : fmt::format("%{:02X}", c);
  return (name.empty() || name == "." || name == ".." ? "%" + name : name) + ".prom";
}

// The drain list first: it is what protects a failed node, so a --json or a Prometheus file
// that cannot be written never costs it. Every output is tried; any that failed makes the exit
// status 3, each named with its errno text.
int write_outputs(const CheckOptions &o, const check::CheckResult &result, const RunSet &runs) {
  std::vector<std::string> failed;
  const auto write = [&](const std::optional<std::string> &path, const char *flag,
                         const std::function<std::string()> &text) {
    if (!path)
      return;
    try {
      write_output_file(*path, text(), flag);
    } catch (const BackendError &e) {
      failed.push_back(e.what());
    }
  };
  write(o.drain, "--drain", [&] { return check::render_drain(result); });
  std::cout << render(result, o.format, o.wide) << std::flush;
  write(o.json, "--json", [&] { return check::to_json(result).dump(2) + "\n"; });
  write(o.markdown, "--markdown", [&] { return check::render_markdown(result); });
  write(o.junit, "--junit", [&] { return check::render_junit(result); });
  check::PrometheusContext prom;
  if (o.prometheus || o.prometheus_dir) {
    prom.unix_time_s = std::chrono::duration_cast<std::chrono::seconds>(
                           std::chrono::system_clock::now().time_since_epoch())
                           .count();
    for (const auto &run : runs.runs)
      for (const auto &rec : run.records)
        prom.run_ids_by_host[rec.host].insert(rec.run);
  }
  write(o.prometheus, "--prometheus", [&] { return check::render_prometheus(result, prom); });
  if (o.prometheus_dir) {
    // One file per machine (<host>.prom), for a node_exporter on each node to collect its own; a
    // multi-node group's series are in each of its nodes' files.
    std::error_code ec;
    std::filesystem::create_directories(*o.prometheus_dir, ec);
    if (ec)
      failed.push_back(
          fmt::format("--prometheus-dir: cannot create '{}': {}", *o.prometheus_dir, ec.message()));
    else
      for (const auto &machine : result.machines()) {
        prom.only_host = machine.host;
        write((std::filesystem::path(*o.prometheus_dir) / prometheus_file_name(machine.host))
                  .string(),
              "--prometheus-dir", [&] { return check::render_prometheus(result, prom); });
      }
  }
  for (const auto &f : failed)
    std::cerr << "railgauge: failed: " << f << '\n';
  return failed.empty() ? check::exit_status(result.verdict) : code(ExitStatus::internal);
}

// --history: the runs judged are stored (idempotent: a run already there is left as it is), then
// every part of their hosts is judged against its own past; with no runs given, every host the
// database holds.
// Returns the history's judgement less its findings: how it dated its runs, for the record rules
// to read their newest runs from, and where parts were replaced. With runs given, the repeat
// offenders are judged here, once the runs' verdicts are stored; with none, by the caller, once
// the newest runs' are.
history::HistoryJudgement judge_history(std::unique_ptr<history::Database> &db, const RunSet &runs,
                                        const check::HistoryThresholds &thresholds,
                                        check::CheckResult &result) {
  long long added = 0;
  for (const auto &judged_run : runs.runs) {
    // Stored whole: the results --latest-per-host set aside as measured again are the run's too.
    const auto whole = with_results_set_aside(judged_run);
    const auto &run = whole ? *whole : judged_run;
    try {
      const auto out = history::ingest_run(*db, run, history::unread_files_of(runs, judged_run));
      added += out.added;
      if (out.refreshed)
        std::cerr << fmt::format("railgauge: --history: {} ({}) refreshed (was {})\n", out.run_id,
                                 out.host, out.before);
    } catch (const history::RunNotStorable &e) {
      // Judged from its directory all the same; only its history is missing, and said.
      std::cerr << "railgauge: error: --history: " << e.what() << '\n';
    }
  }
  if (added)
    std::cerr << fmt::format("railgauge: --history: {} run{} stored in {}\n", added,
                             added == 1 ? "" : "s", db->name());
  const auto hosts = runs.runs.empty() ? std::vector<std::string>{} : result.hosts();
  auto judged = history::judge_history(*db, hosts, thresholds, history::Offenders::later);
  history::add_history(result, judged);
  std::vector<history::JudgedRun> judged_runs;
  for (const auto &run : runs.runs)
    if (!run.records.empty())
      judged_runs.push_back({run.records.front().host, run.records.front().run, run.dir});
  if (!judged_runs.empty())
    history::record_verdicts(*db, result, judged_runs);
  if (!runs.runs.empty()) // once the runs' verdicts are stored: a run's failure counts now
    history::add_history(result, history::judge_repeat_offenders(
                                     *db, hosts, thresholds, judged.dating, judged.replaced_at_s));
  for (auto &line : history::runs_not_newest(*db, judged.dating, judged_runs))
    result.problems.push_back(std::move(line));
  judged.findings.clear();
  return judged;
}

std::unique_ptr<history::Database> open_history(const CheckOptions &o) {
  if (o.history.url.empty())
    return nullptr;
  // Without runs to ingest, check only reads the history: a path that holds none is refused.
  return history::open_database(o.history.url, {.timeout_s = o.history.timeout_s,
                                                .password_file = o.history.password_file,
                                                .create = !o.runs.empty()});
}

int judge_and_write(const CheckOptions &o, const MachineSnapshot &this_machine) {
  // Opened first: a database that cannot be reached, is locked or is newer refuses the check
  // before anything is judged (exit 4), and the run directories are left as they were.
  auto db = open_history(o);
  if (db && o.runs.empty() && !o.inventory_only) {
    check::CheckResult result;
    result.rules_name = "history";
    // --rules (a name or a file; auto is refused above: no runs to pick by) sets the thresholds,
    // and its record rules judge the newest run of each host the database holds. Without one,
    // the built-in rules still do: a record that failed its data check fails its part and a run
    // cut short is named, whatever the history says.
    check::RuleSet rules;
    rules.name = "history";
    rules.unjudged_nodes = check::Level::info; // no profile: no rule was meant to read them
    if (!o.rules.empty())
      rules = check::load_rules_file(
          find_named_yaml("rules", o.rules, {(data_dir() / "rules").string()}));
    // As over directories: the stored unreadable paths at --unreadable's level.
    if (o.unreadable)
      rules.unreadable_inputs = *unreadable_level(*o.unreadable);
    auto history = judge_history(db, RunSet{}, rules.history, result);
    result.rules_name = rules.name;
    result.rules_file = rules.file;
    const auto judged = history::judge_record_rules(*db, rules, result, history.dating);
    history::add_unreadable(*db, rules, result);
    // A database that holds no run (a new file, a URL with a typo) has judged nothing: not a pass.
    // Where ingest refused every run it was given, the first one and why are named.
    if (result.parts.empty())
      throw InputError(
          result.unreadable.empty()
              ? std::string("the database holds no run to judge")
              : fmt::format("the database holds no run to judge; {} path{} ingest could not "
                            "read or store, first {}: {}",
                            result.unreadable.size(), result.unreadable.size() == 1 ? "" : "s",
                            result.unreadable.front().path, result.unreadable.front().what),
          db->name(),
          "store runs first (railgauge db ingest --db URL RUN..., or run --db URL; fix what it "
          "refused and ingest again), or give the URL of the fleet's database");
    // Hosts stored before ingest refused such names are refused here as over directories.
    refuse_unsafe_hosts(result, [&db](const std::string &) {
      return db->name() + " (railgauge db list; railgauge db remove)";
    });
    // What the profile concluded of each newest run is stored, as `check --history DB RUN`
    // stores it: the repeat-offender rule counts failed runs by these verdicts, and a fleet that
    // ingests and then checks (`db ingest`, then `check --history`) never stored one.
    if (!o.rules.empty())
      history::record_verdicts(*db, result, judged.newest);
    else // no profile judged here: what one concluded of these runs still stands
      history::add_history(result, history::stored_verdicts(*db, judged.newest));
    check::add_expected_hosts(result, check::host_list(o.expect_hosts));
    // After the newest runs' verdicts are stored, as over run directories.
    history::add_history(result,
                         history::judge_repeat_offenders(*db, {}, rules.history, history.dating,
                                                         history.replaced_at_s));
    if (judged.runs > 0)
      std::cerr << fmt::format("railgauge: --history: the rules of {} judged over the newest run "
                               "of each host and suite: {} run{}, {} values\n",
                               rules.name, judged.runs, judged.runs == 1 ? "" : "s", judged.values);
    return write_outputs(o, result, RunSet{});
  }
  auto runs = runs_to_judge(o, this_machine);
  const auto rules_path =
      find_named_yaml("rules", rules_to_use(o, runs), {(data_dir() / "rules").string()});
  auto rules = check::load_rules_file(rules_path);
  if (o.inventory_only)
    rules = inventory_rules_only(std::move(rules), rules_path);
  const auto kept_beside = choose_latest_runs(runs, o.latest_per_host);
  if (o.unreadable)
    rules.unreadable_inputs = *unreadable_level(*o.unreadable);
  runs.cut_short = o.cut_short;
  auto result = check::evaluate(rules, runs);
  // As the history says it (history_rules.cpp): among the problems, in every format.
  result.problems.insert(result.problems.end(), kept_beside.begin(), kept_beside.end());
  check::add_expected_hosts(result, check::host_list(o.expect_hosts));
  if (o.expect_gpus)
    check::add_expected_gpus(result, runs, *o.expect_gpus);
  if (db) {
    judge_history(db, runs, rules.history, result);
    // What this read of the directories could not read replaces what earlier reads of them
    // could not, as db ingest keeps it: a run fixed since is no longer held against the fleet.
    history::store_unreadable(*db, o.runs, runs.unreadable);
  }
  refuse_unsafe_hosts(result, runs);
  return write_outputs(o, result, runs);
}

int run_check(const CLI::App &cmd, const CheckOptions &o, const MachineSnapshot &this_machine) {
  validate(cmd, o);
  return judge_and_write(o, this_machine);
}

} // namespace

int check_runs(const std::vector<std::string> &runs, const std::string &rules) {
  CheckOptions o;
  o.rules = rules;
  o.runs = runs;
  return exit_status_of([&] {
    if (o.runs.empty())
      throw InputError("no run directories to judge", "check", "give the run's directory");
    return judge_and_write(o, [] { return nlohmann::json::object(); });
  });
}

void refuse_unreadable_rules(const std::string &rules) {
  if (rules != "auto")
    check::load_rules_file(find_named_yaml("rules", rules, {(data_dir() / "rules").string()}));
}

void add_check_command(CLI::App &app, int &exit_code, MachineSnapshot this_machine) {
  auto o = std::make_shared<CheckOptions>();
  auto *cmd = app.add_subcommand(
      "check", "Judge run directories against acceptance rules: a verdict per node, GPU and NIC.\n"
               "Exit status: 0 pass, 1 warn, 2 fail, 3 crashed or an output could not be "
               "written (the drain list is written first), 4 input error (nothing judged).");
  cmd->add_option("--rules", o->rules,
                  fmt::format("Rules: a shipped profile by name ({}; from "
                              "share/railgauge/rules), the path of a rules YAML file, or auto: "
                              "the burn-in profile of the GPUs the runs show (h100-sxm, "
                              "h200-sxm, or their -1gpu variants), said on stderr",
                              shipped_names("rules")));
  cmd->add_option("runs", o->runs,
                  "Run directories, directories holding many (every rank's or node's), or "
                  "records.jsonl files; all judged together as one fleet");
  cmd->add_option("--format", o->format,
                  "Standard output: table, json, markdown, junit, prometheus or drain")
      ->capture_default_str();
  cmd->add_option("--json", o->json, "Also write the verdict as JSON (railgauge.check/1)")
      ->check(output_file_check("--format json for standard output"));
  cmd->add_option("--markdown", o->markdown, "Also write the verdict as markdown")
      ->check(output_file_check("--format markdown for standard output"));
  cmd->add_option("--junit", o->junit, "Also write JUnit XML for CI systems")
      ->check(output_file_check("--format junit for standard output"));
  cmd->add_option("--prometheus", o->prometheus,
                  "Also write a Prometheus textfile (node_exporter textfile collector)")
      ->check(output_file_check("--format prometheus for standard output"));
  cmd->add_option("--prometheus-dir", o->prometheus_dir,
                  "Also write one Prometheus textfile per node, DIR/<host>.prom");
  cmd->add_option("--drain", o->drain, "Also write the failed hosts, one per line")
      ->check(output_file_check("--format drain for standard output"));
  cmd->add_option("--unreadable", o->unreadable,
                  "Level of a path the runs cannot be read from (a directory without permission, "
                  "an I/O error, a FIFO named run.json): fail (default, or the rules' "
                  "unreadable_inputs), warn or info");
  cmd->add_option("--expect-hosts", o->expect_hosts,
                  "The nodes the job was given (commas or spaces: Slurm's `scontrol show hostnames "
                  "$SLURM_JOB_NODELIST`): each that left no run fails (expected-host) and is "
                  "drained, not left out of the verdict");
  cmd->add_option("--cut-short", o->cut_short,
                  "Why the job ended before every step ran (its time limit: slurm_burnin.sbatch "
                  "gives it): a rule that finds no record on any node of these runs warns with "
                  "this reason instead of its on_missing level (not measured: not a pass, not a "
                  "drain); what was measured is judged as ever, and a node that lacks what "
                  "others measured is judged as in any run");
  cmd->add_option("--expect-gpus", o->expect_gpus,
                  "The GPUs every node must show (Slurm's gres): a node whose NVML lists fewer "
                  "fails (expected-gpus), and --rules auto takes the profile for that many")
      ->check(CLI::Range(1, 1024));
  cmd->add_flag("--latest-per-host", o->latest_per_host,
                "Judge only the newest run of each host and suite (a retest supersedes the run "
                "it repeats); older runs given are left out, and said so");
  cmd->add_flag("--wide", o->wide,
                "Table: print every line in full (by default each is cut at 120 columns; the "
                "full text is also in --json and --markdown)");
  cmd->add_flag("--inventory-only", o->inventory_only,
                "Judge only the rules that read the inventory (GPU and NIC counts, ECC, row "
                "remaps, links): with no runs given, this machine's inventory taken now, in "
                "seconds (a Slurm prolog or NHC check)");
  cmd->add_option("--history", o->history.url,
                  "Also judge each part against its own past in this database (sqlite:PATH or "
                  "postgresql://...): drift, a step since the previous run, a replaced part, a "
                  "repeat offender. The runs given are stored in it first; with none given, "
                  "every host it holds is judged (no rules needed), and --rules' fleet-relative "
                  "record rules judge the newest run of each host and suite it holds");
  history::add_db_flags(cmd, o->history);
  cmd->allow_extras();
  cmd->callback([cmd, o, &exit_code, this_machine = std::move(this_machine)] {
    exit_code = exit_status_of([&] { return run_check(*cmd, *o, this_machine); });
  });
  cmd->footer(examples_help(
      {{"railgauge check --rules auto runs/",
        "every run under runs/, judged by the burn-in profile of the GPUs they found"},
       {"railgauge check --rules host-only runs/ --drain drain.txt",
        "host DRAM against the fleet; the failed hosts written to drain.txt, one per line"},
       {"railgauge check --rules h200-sxm-1gpu "
        "results/reference/h200-burnin-2026-11-27/burnin/cotenant --wide",
        "a committed H200 burn-in beside a co-tenant: FAIL on its GEMM and HBM floors, every "
        "line whole"}}));
}

} // namespace railgauge::analysis
