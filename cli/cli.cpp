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
#include "cli/burnin_command.h"
#include "cli/command_hint.h"
#include "cli/fabric_command.h"
#include "cli/make_registry.h"
#include "cli/measure_command.h"
#include "cli/printers.h"
#include "gemm/tp_table.h"
#include "harness/cuda/device.h"
#include "harness/data_paths.h"
#include "harness/error.h"
#include "harness/exit_status.h"
#include "harness/expectations.h"
#include "harness/inventory/inventory.h"
#include "harness/inventory/inventory_fields.h"
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
    for (const auto &w : inventory[inventory_field::kWarnings]) // the table shows them at its top
      std::cerr << "railgauge: warning: " << w.get<std::string>() << '\n';
  } else {
    std::cout << render_inventory_text(inventory);
  }
  return 0;
}

// What `railgauge --help` and `--version` say of the program as a whole.
void describe_app(CLI::App &app) {
  app.description("railgauge: microbenchmarks and fabric validation for GPU training clusters.\n"
                  "Records go to <out>/<run-id>/records.jsonl (one JSON object per point) with\n"
                  "the manifest run.json beside them. GB = 1e9 bytes, Gb = 1e9 bits.");
  app.require_subcommand(1);
  // Every command added after this inherits this one line, and only the program's own help
  // prints the table (dispatch sets it once the commands are in).
  app.footer(exit_status_reference());
  app.set_version_flag("--version",
                       fmt::format("railgauge {} ({})", RAILGAUGE_VERSION,
                                   *RAILGAUGE_CUDA_TOOLKIT_VERSION
                                       ? fmt::format("CUDA {}", RAILGAUGE_CUDA_TOOLKIT_VERSION)
                                       : std::string("without CUDA")));
}

// `railgauge exit-statuses`: the one table of harness/exit_status.h, for the docs and scripts.
CLI::App *add_exit_statuses_command(CLI::App &app, std::string &format) {
  auto *cmd = app.add_subcommand(
      "exit-statuses", "The exit statuses of every railgauge command (harness/exit_status.h)");
  cmd->add_option("--format", format, "text or markdown (the docs' table)")
      ->check(CLI::IsMember({"text", "markdown"}));
  return cmd;
}

int print_exit_statuses(const std::string &format) {
  std::cout << (format == "markdown" ? exit_status_markdown() : exit_status_help());
  return code(ExitStatus::ok);
}

// `railgauge run --help`'s examples.
std::string run_examples() {
  return examples_help(
      {{"railgauge run", "the default node suite: every family on whatever this machine has"},
       {"railgauge run quick --out runs", "eight host DRAM points, in seconds"},
       {"railgauge run --filter 'memory.host_*' -a size_bytes=16KiB:1GiB:*2",
        "the host DRAM kernels only, over a sweep of your own"}});
}

// One subcommand per family that has benchmarks: its benchmarks at their default axes.
struct FamilyCommands {
  std::vector<std::pair<CLI::App *, std::string>> cmds;
  CommonOptions options;
  // `railgauge gemm --model gpt3-175b --tp 1,2,4,8`: the headline sweep without -a syntax.
  std::optional<std::string> gemm_model, gemm_tp;
  // `railgauge collectives --groups tp=8,pp=4,dp=rest`: each group type alone, commas allowed.
  std::optional<std::string> collective_groups;
};

// The options are bound to `f`'s members, which must outlive the parse.
void add_family_commands(CLI::App &app, const Registry &registry, FamilyCommands &f) {
  for (const char *family : kFamilies) {
    if (registry.match(std::string(family) + ".*").empty())
      continue;
    auto *cmd = app.add_subcommand(family, fmt::format("Run the {}.* benchmarks", family));
    add_common_options(*cmd, f.options);
    if (std::string_view(family) == "gemm") {
      cmd->add_option("--model", f.gemm_model,
                      "The GPU TP sweep of this model: --filter gemm.cublaslt -a model=NAME");
      cmd->add_option("--tp", f.gemm_tp, "With --model: TP degrees, e.g. 1,2,4,8 (-a tp=...)");
    }
    if (std::string_view(family) == "collectives")
      cmd->add_option("--groups", f.collective_groups,
                      "Group split, fastest-varying first, e.g. tp=8,pp=4,dp=rest: runs each "
                      "group type alone (-a groups=tp=8+pp=4+dp=rest -a group_type=tp,pp,dp; "
                      "add -a group_type=concurrent for all at once)");
    f.cmds.emplace_back(cmd, family);
  }
}

// A family command: its benchmarks, with the options that stand for axes turned into them.
int run_family(Registry &&registry, const std::string &family, FamilyCommands &f,
               const std::vector<std::string> &args, rdma::LedgerPlace *ledger) {
  SuiteEntry entry;
  entry.key_glob = family + ".*";
  entry.where = family;
  if (f.gemm_model) {
    f.options.axes.push_back("model=" + *f.gemm_model);
    if (!f.options.filter)
      f.options.filter = gemm::record::kCublasLt;
  }
  if (f.gemm_tp)
    f.options.axes.push_back("tp=" + *f.gemm_tp);
  if (f.collective_groups)
    add_group_axes(*f.collective_groups, f.options.axes);
  return measure_entries(std::move(registry), {entry}, f.options, args,
                         {{"name", family}, {"path", nullptr}}, ledger);
}

// --label and --expect take one value each time they are given: CLI11 lets a vector option take
// every word after it, so `compare --label ib --label roce A B` took A and B for labels and `run
// --expect gpus=8 quick` took the suite for an expectation. (--ignore-param keeps taking several:
// scripts give it a list.)
void one_value_per_flag(CLI::App &app) {
  for (const char *name : {"--label", "--expect"})
    if (auto *opt = app.get_option_no_throw(name); opt && opt->get_expected_max() > 1)
      opt->allow_extra_args(false);
  for (auto *sub : app.get_subcommands({}))
    one_value_per_flag(*sub);
}

int dispatch(int argc, char **argv) {
  // Filled by measure_entries once it has made the run directory, before any point runs.
  const auto ledger = std::make_shared<rdma::LedgerPlace>();
  Registry registry = make_registry(ledger);
  const std::vector<std::string> args(argv, argv + argc);

  CLI::App app;
  describe_app(app);

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
  run->footer(run_examples());

  std::string exit_status_format = "text";
  auto *exit_statuses = add_exit_statuses_command(app, exit_status_format);

  BurninOptions burnin_options;
  auto *burnin = add_burnin_command(app, burnin_options);

  FamilyCommands families;
  add_family_commands(app, registry, families);

  // Commands that read run directories run inside parse() and set this.
  int analysis_exit = -1;
  analysis::add_analysis_commands(app, analysis_exit, [] {
    return nlohmann::json{{"host", this_host_name()},
                          {inventory_field::kInventory, collect_inventory(InventoryOptions{})}};
  });

  add_fabric_command(app, analysis_exit);
  app.footer(exit_status_help());
  one_value_per_flag(app);

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError &e) {
    // `railgauge ingest` said only "A subcommand is required".
    if (args.size() > 1 && app.get_subcommands().empty())
      if (const auto hint = nested_command_hint(app, args[1])) {
        std::cerr << "railgauge: error: " << *hint << '\n';
        return code(ExitStatus::bad_input);
      }
    return app.exit(e) == 0 ? code(ExitStatus::ok) : code(ExitStatus::bad_input);
  }

  if (analysis_exit >= 0)
    return analysis_exit;
  if (list->parsed())
    return list_benchmarks(registry, list_format, list_filter);
  if (inventory->parsed())
    return show_inventory(topology_file, inventory_format);
  if (exit_statuses->parsed())
    return print_exit_statuses(exit_status_format);
  if (burnin->parsed())
    return run_burnin(std::move(registry), burnin_options, args, ledger.get());
  if (run->parsed()) {
    const auto path = find_suite(suite_name, suite_dirs(suites_dir));
    const Suite suite = load_suite_file(path);
    return measure_entries(std::move(registry), suite.entries, run_options, args,
                           {{"name", suite.name}, {"path", path}}, ledger.get());
  }
  for (const auto &[cmd, family] : families.cmds)
    if (cmd->parsed())
      return run_family(std::move(registry), family, families, args, ledger.get());
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
