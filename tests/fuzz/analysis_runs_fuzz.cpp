// The analysis commands on a run read back from disk (analysis/run_set.h), the input split into
// run.json and records.jsonl as run_directory.h says. Whatever the files hold, load_runs keeps
// what it cannot read as problems, and what `check` (every rule of the committed rule files),
// `compare` (the run against itself) and `report` make of the rest ends in their output or in an
// InputError: never a crash, a hang or an exception of another type (a JSON library type_error
// from a run.json field of an unexpected type was one). `calibrate` is calibrate_runs.
#include <cstdint>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "analysis/check/check_output.h"
#include "analysis/check/evaluate.h"
#include "analysis/check/rules.h"
#include "analysis/compare/compare.h"
#include "analysis/report/report.h"
#include "analysis/run_set.h"
#include "harness/error.h"
#include "tests/fuzz/run_directory.h"

namespace {

railgauge::check::RuleSet committed_rules() {
  railgauge::check::RuleSet all;
  for (const char *file : {"h100-sxm-ib.yaml", "h100-sxm-roce.yaml", "host-only.yaml"}) {
    auto set = railgauge::check::load_rules_file(std::string(RAILGAUGE_SOURCE_DIR) +
                                                 "/results/rules/" + file);
    for (auto &rule : set.rules) {
      rule.id = std::string(file) + ":" + rule.id; // the files share ids
      all.rules.push_back(std::move(rule));
    }
  }
  return all;
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *data, std::size_t size) {
  namespace rg = railgauge;
  static const RunDirectory dir;
  static const rg::check::RuleSet rules = committed_rules();
  const std::string path = dir.write({reinterpret_cast<const char *>(data), size});
  try {
    const auto runs = rg::analysis::load_runs({path});
    const auto verdict = rg::check::evaluate(rules, runs);
    (void)rg::check::render_table(verdict);
    (void)rg::check::render_markdown(verdict);
    const auto verdict_json = rg::check::to_json(verdict);
    (void)verdict_json.dump(2); // as check --json writes it
    (void)rg::check::render_junit(verdict);
    (void)rg::check::render_prometheus(verdict);
    (void)rg::check::render_drain(verdict);
    rg::report::check_result_for_report(verdict_json, "check.json");

    try {
      const auto c = rg::compare::compare_runs({runs, runs}, {"a", "b"}, {});
      (void)rg::compare::render_table(c);
      (void)rg::compare::render_markdown(c);
      const auto c_json = rg::compare::to_json(c);
      (void)rg::compare::comparison_from_json(nlohmann::json::parse(c_json.dump(2)));
      (void)rg::report::build_report({"fuzz", nullptr, &c, verdict_json});
    } catch (const rg::InputError &) {
    }
    (void)rg::report::build_report({"fuzz", &runs, nullptr, verdict_json});
  } catch (const rg::InputError &) {
  }
  return 0;
}
