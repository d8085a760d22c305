#include "analysis/commands/report_command.h"

#include <filesystem>
#include <fstream>
#include <iostream>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include "analysis/check/check_output.h"
#include "analysis/check/output_file.h"
#include "analysis/commands/check_command.h"
#include "analysis/commands/db_command.h"
#include "analysis/commands/exit_status_of.h"
#include "analysis/commands/output_file_option.h"
#include "analysis/commands/unknown_arguments.h"
#include "analysis/compare/point_matching.h"
#include "analysis/history/history_report.h"
#include "analysis/report/report.h"
#include "harness/data_paths.h"
#include "harness/error.h"
#include "harness/host_group.h"
#include "harness/exit_status.h"

namespace railgauge::analysis {
namespace {

// The run directories' names (their last component, which holds the run id) of a list of paths.
std::set<std::string> run_dir_names(const std::vector<std::string> &paths) {
  std::set<std::string> out;
  for (const auto &p : paths)
    if (const auto name = std::filesystem::path(p).lexically_normal().filename().string();
        !name.empty())
      out.insert(name);
  return out;
}

// A verdict beside a comparison it judged none of the runs of: the page drew "Verdict: pass"
// above a comparison of other runs (the healthy burn-in's check beside a comparison of two
// co-tenant runs). The run directories it judged and the comparison's must meet.
void refuse_a_verdict_of_other_runs(const nlohmann::json &check, const std::string &file,
                                    const compare::Comparison &comparison) {
  std::vector<std::string> judged_paths, compared_paths;
  if (check.contains("inputs") && check["inputs"].is_array())
    for (const auto &in : check["inputs"])
      if (in.is_string())
        judged_paths.push_back(in.get<std::string>());
  for (const auto &input : comparison.inputs)
    compared_paths.insert(compared_paths.end(), input.begin(), input.end());
  const auto judged = run_dir_names(judged_paths), compared = run_dir_names(compared_paths);
  if (judged.empty() || compared.empty())
    return; // a verdict over a fleet history names no run directory
  for (const auto &name : judged)
    if (compared.count(name))
      return;
  throw InputError(
      fmt::format("{} judged runs {}; the comparison is of runs {}: none in common", file,
                  compare::joined_sample(judged), compare::joined_sample(compared)),
      "--check", "give the verdict railgauge check --json wrote for the compared runs");
}

// A verdict of other runs drew "Verdict: pass" and its nodes' table above runs it never judged:
// the hosts it judged and the report's must meet. Machines on both sides: a verdict lists each
// node of a multi-node log ("a+b") on its own (an older one lists the group).
void refuse_a_verdict_of_other_hosts(const nlohmann::json &check, const std::string &file,
                                     const RunSet &runs) {
  std::set<std::string> judged, drawn;
  if (check.contains("nodes") && check["nodes"].is_array())
    for (const auto &n : check["nodes"])
      if (n.is_object() && n.contains("host") && n["host"].is_string())
        for (auto &node : hosts_of_group(n["host"].get<std::string>()))
          judged.insert(std::move(node));
  for (const auto &run : runs.runs)
    for (auto &node : hosts_of_group(host_of(run)))
      drawn.insert(std::move(node));
  if (judged.empty() || drawn.empty())
    return;
  for (const auto &h : judged)
    if (drawn.count(h))
      return;
  throw InputError(fmt::format("{} judged hosts {}; the runs given are of hosts {}: none in "
                               "common",
                               file, compare::joined_sample(judged), compare::joined_sample(drawn)),
                   "--check",
                   "give the verdict railgauge check --json wrote for these runs, or the runs "
                   "it judged");
}

struct ReportCommandOptions {
  std::vector<std::string> inputs;
  std::optional<std::string> check, html, markdown, title;
  history::DbFlags history; // --history DB --host HOST [--rules FILE]
  std::string host, rules;
};

// report --history: the host's parts over its runs, from the database alone.
report::Report history_report(const ReportCommandOptions &o) {
  if (o.host.empty())
    throw InputError("--history needs the host to draw", "--host",
                     "give --host NAME, a host the database holds");
  auto db = history::open_database(o.history.url, {.timeout_s = o.history.timeout_s,
                                                   .password_file = o.history.password_file,
                                                   .create = false});
  std::optional<check::RuleSet> rules;
  if (!o.rules.empty())
    rules = check::load_rules_file(
        find_named_yaml("rules", o.rules, {(data_dir() / "rules").string()}));
  report::ReportInput in;
  in.title = o.title.value_or("railgauge history: " + o.host);
  in.sections.push_back([&](report::Page &page) {
    history::history_section(page, *db, o.host, rules ? &*rules : nullptr);
  });
  return report::build_report(in);
}

nlohmann::json read_json(const std::string &path, const std::string &flag) {
  std::ifstream in(path);
  if (!in)
    throw InputError(fmt::format("cannot read '{}'", path), flag, "give a readable JSON file");
  try {
    return nlohmann::json::parse(in);
  } catch (const nlohmann::json::exception &e) {
    throw InputError(fmt::format("'{}' is not valid JSON: {}", path, e.what()), flag,
                     "give the file railgauge check --json or railgauge compare --json wrote");
  }
}

int write_report(const ReportCommandOptions &o, const report::Report &rep) {
  if (o.html)
    write_output_file(*o.html, rep.html, "--html");
  if (o.markdown)
    write_output_file(*o.markdown, rep.markdown, "--markdown");
  if (!o.html && !o.markdown)
    std::cout << rep.markdown;
  return 0;
}

int run_report(const CLI::App &cmd, const ReportCommandOptions &o) {
  refuse_unknown_arguments(cmd, "report");
  if (!o.history.url.empty())
    return write_report(o, history_report(o));
  if (o.inputs.empty())
    throw InputError("nothing to report on", "report",
                     "give run directories, or the JSON file of railgauge compare --json");
  report::ReportInput in;
  std::optional<RunSet> runs;
  std::optional<compare::Comparison> comparison;
  const auto &first = o.inputs.front();
  // A comparison's JSON among run directories was read as a records file (546 lines "not a
  // complete JSON line"), and the page written, exit 0.
  const auto is_json_file = [](const std::string &path) {
    return std::filesystem::is_regular_file(path) && path.ends_with(".json");
  };
  if (o.inputs.size() > 1)
    for (const auto &input : o.inputs)
      if (is_json_file(input))
        throw InputError(fmt::format("{}: a JSON file among {} inputs", input, o.inputs.size()),
                         "report",
                         "give a comparison's JSON (railgauge compare --json) alone, or run "
                         "directories only");
  if (o.inputs.size() == 1 && is_json_file(first)) {
    const auto doc = read_json(first, "report");
    const auto schema = doc.is_object() && doc.contains("schema") && doc["schema"].is_string()
                            ? doc["schema"].get<std::string>()
                            : std::string();
    if (schema == check::kCheckSchema)
      throw InputError(fmt::format("'{}' is a check's verdict ({}), not a comparison", first,
                                   check::kCheckSchema),
                       "report",
                       "give it as --check FILE beside the run directories it judged: railgauge "
                       "report RUNS... --check " +
                           first);
    try {
      comparison = compare::comparison_from_json(doc, first);
    } catch (const nlohmann::json::exception &e) {
      throw InputError(
          fmt::format("'{}' is not a comparison as compare --json writes it: {}", first, e.what()),
          "report", "give the file railgauge compare --json wrote");
    }
    in.comparison = &*comparison;
    in.title = "railgauge comparison";
  } else {
    runs = load_runs(o.inputs);
    in.runs = &*runs;
    in.title = "railgauge report";
  }
  std::optional<check::RuleSet> rules;
  if (!o.rules.empty()) {
    rules = check::load_rules_file(
        find_named_yaml("rules", o.rules, {(data_dir() / "rules").string()}));
    in.rules = &*rules;
  }
  if (o.check) {
    in.check = read_json(*o.check, "--check");
    report::check_result_for_report(*in.check, *o.check);
    if (runs)
      refuse_a_verdict_of_other_hosts(*in.check, *o.check, *runs);
    if (comparison)
      refuse_a_verdict_of_other_runs(*in.check, *o.check, *comparison);
  }
  if (o.title)
    in.title = *o.title;
  // The report reads the --check and comparison files' fields by the types their writers give
  // them, and the records' by their schema's: a field of another type (hand-edited, or another
  // tool's) is bad input, named with what was read, never a crash.
  try {
    return write_report(o, report::build_report(in));
  } catch (const nlohmann::json::exception &e) {
    throw InputError(
        fmt::format("a field of the input has a type the report cannot read: {}", e.what()),
        o.check ? *o.check : first,
        "give the files railgauge check --json and compare --json wrote, and run "
        "directories as railgauge wrote them");
  }
}

} // namespace

void add_report_command(CLI::App &app, int &exit_code) {
  auto o = std::make_shared<ReportCommandOptions>();
  auto *cmd = app.add_subcommand(
      "report", "One self-contained HTML page (inline SVG, no scripts) and a markdown twin for "
                "runs or a comparison.\nExit status: 0 written, 3 crashed, 4 input error.");
  cmd->add_option("inputs", o->inputs,
                  "Run directories (or directories of runs), or one comparison JSON from "
                  "railgauge compare --json");
  cmd->add_option("--check", o->check, "Add the verdict table from railgauge check --json FILE");
  cmd->add_option("--html", o->html, "Write the HTML page here")
      ->check(output_file_check("neither --html nor --markdown: the markdown twin is printed"));
  cmd->add_option("--markdown", o->markdown,
                  "Write the markdown twin here (printed when neither file is given)")
      ->check(output_file_check("neither --html nor --markdown: the markdown twin is printed"));
  cmd->add_option("--title", o->title, "Page title");
  cmd->add_option("--history", o->history.url,
                  "Draw a host's parts over its runs from this fleet history (sqlite:PATH or "
                  "postgresql://...): a chart per figure, a line per slot, the fleet's band and "
                  "the floor of --rules");
  cmd->add_option("--host", o->host, "With --history: the host to draw");
  cmd->add_option("--rules", o->rules,
                  "The rules whose floors are drawn (a shipped profile's name or a rules file): "
                  "the burn-in's per-GPU figures of run directories, or with --history a host's "
                  "parts");
  history::add_db_flags(cmd, o->history);
  cmd->allow_extras();
  cmd->callback(
      [cmd, o, &exit_code] { exit_code = exit_status_of([&] { return run_report(*cmd, *o); }); });
}

} // namespace railgauge::analysis
