#include "analysis/report/report_command.h"

#include <filesystem>
#include <fstream>
#include <iostream>
#include <optional>

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include "analysis/check/check_command.h"
#include "analysis/check/check_output.h"
#include "analysis/check/output_file.h"
#include "analysis/report/report.h"
#include "harness/error.h"
#include "harness/exit_status.h"

namespace railgauge::analysis {
namespace {

struct Options {
  std::vector<std::string> inputs;
  std::optional<std::string> check, html, markdown, title;
};

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

int run_report(const CLI::App &cmd, const Options &o) {
  if (!cmd.remaining().empty())
    throw InputError(fmt::format("unknown argument '{}'", cmd.remaining().front()), "report",
                     "see railgauge report --help");
  if (o.inputs.empty())
    throw InputError("nothing to report on", "report",
                     "give run directories, or the JSON file of railgauge compare --json");
  report::ReportInput in;
  std::optional<RunSet> runs;
  std::optional<compare::Comparison> comparison;
  const auto &first = o.inputs.front();
  if (o.inputs.size() == 1 && std::filesystem::is_regular_file(first) && first.ends_with(".json")) {
    comparison = compare::comparison_from_json(read_json(first, "report"));
    in.comparison = &*comparison;
    in.title = "railgauge comparison";
  } else {
    runs = load_runs(o.inputs);
    in.runs = &*runs;
    in.title = "railgauge report";
  }
  if (o.check) {
    in.check = read_json(*o.check, "--check");
    report::check_result_for_report(*in.check, *o.check);
  }
  if (o.title)
    in.title = *o.title;
  const auto rep = report::build_report(in);
  if (o.html)
    write_output_file(*o.html, rep.html, "--html");
  if (o.markdown)
    write_output_file(*o.markdown, rep.markdown, "--markdown");
  if (!o.html && !o.markdown)
    std::cout << rep.markdown;
  return 0;
}

} // namespace

void add_report_command(CLI::App &app, int &exit_code) {
  auto o = std::make_shared<Options>();
  auto *cmd = app.add_subcommand(
      "report", "One self-contained HTML page (inline SVG, no scripts) and a markdown twin for "
                "runs or a comparison.\nExit status: 0 written, 3 crashed, 4 input error.");
  cmd->add_option("inputs", o->inputs,
                  "Run directories (or directories of runs), or one comparison JSON from "
                  "railgauge compare --json");
  cmd->add_option("--check", o->check, "Add the verdict table from railgauge check --json FILE");
  cmd->add_option("--html", o->html, "Write the HTML page here");
  cmd->add_option("--markdown", o->markdown,
                  "Write the markdown twin here (printed when neither file is given)");
  cmd->add_option("--title", o->title, "Page title");
  cmd->allow_extras();
  cmd->callback([cmd, o, &exit_code] {
    try {
      exit_code = run_report(*cmd, *o);
    } catch (const InputError &e) {
      std::cerr << "railgauge: error: " << e.what() << '\n';
      exit_code = code(ExitStatus::bad_input);
    }
  });
}

} // namespace railgauge::analysis
