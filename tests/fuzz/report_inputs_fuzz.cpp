// The JSON files `railgauge report` reads besides runs: a comparison (`compare --json`) and a
// check result (`check --json`, given with --check). The first byte picks which; the rest is the
// file. Any text is a report or an InputError, never a crash, a hang or an exception of another
// type; a comparison read back is written and read again unchanged.
#include <cstdint>
#include <cstdlib>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "analysis/compare/compare.h"
#include "analysis/report/report.h"
#include "analysis/run_set.h"
#include "harness/error.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *data, std::size_t size) {
  namespace rg = railgauge;
  if (size == 0)
    return 0;
  const auto j = nlohmann::json::parse(reinterpret_cast<const char *>(data) + 1,
                                       reinterpret_cast<const char *>(data) + size, nullptr,
                                       /*allow_exceptions=*/false);
  if (j.is_discarded())
    return 0; // not JSON: an InputError in report_command, before any of this
  // Once read, the input must render: an exception after that is a bug, whatever its type.
  if (data[0] % 2 == 0) {
    std::optional<rg::compare::Comparison> c;
    try {
      c = rg::compare::comparison_from_json(j);
    } catch (const rg::InputError &) {
      return 0;
    }
    (void)rg::compare::render_table(*c);
    (void)rg::compare::render_markdown(*c);
    (void)rg::report::build_report({"fuzz", nullptr, &*c, std::nullopt});
    const std::string once = rg::compare::to_json(*c).dump();
    if (rg::compare::to_json(rg::compare::comparison_from_json(nlohmann::json::parse(once)))
            .dump() != once)
      std::abort(); // a comparison that does not survive its own round trip
  } else {
    try {
      rg::report::check_result_for_report(j, "fuzz.json");
    } catch (const rg::InputError &) {
      return 0;
    }
    const rg::analysis::RunSet no_runs;
    (void)rg::report::build_report({"fuzz", &no_runs, nullptr, j});
  }
  return 0;
}
