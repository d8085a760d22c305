#pragma once
// The test x part grid that heads a check of a few nodes, as `dcgmi diag` prints its tests: per
// node, one row per rule that judged something there, one column for the node and one per GPU
// (then a grid of the node's NICs), each cell the rule's verdict on that part:
//
//   PASS  every value the rule read on the part passed
//   FAIL  WARN  a value violated the rule at that level
//   MISS  the rule could not read a value it needed (a verdict never passes what it could not
//         read: this counts as the rule's level)
//   n/a   the rule cannot apply here (a lone GPU has no siblings, one GPU no NVLink)
//   .     the rule reads nothing on this part
//
// Rows are grouped by the rules' category (compute, memory, health, ...), in rule id order
// within each. A rack team reads a GPU's column top to bottom; the findings below say why.
#include <string>

#include <nlohmann/json.hpp>

#include "analysis/check/check_result.h"

namespace railgauge::check {

// Above this many nodes the per-node grids give way to the node table alone.
inline constexpr std::size_t kGridMaxHosts = 4;

// The grids for each host of `result`, or "" when it judged more than kGridMaxHosts hosts or no
// rule judged any part. Each grid is preceded by a title line naming the host.
std::string render_test_grid(const CheckResult &result);

// Markdown tables of the same grids.
std::string render_test_grid_markdown(const CheckResult &result);

// The same grids for `check --json` ("test_grid"), which `report --check` draws: a list of
// {title, host, columns, rows: [{category, rule, cells}]}; empty where the text has none.
nlohmann::json test_grid_json(const CheckResult &result);

} // namespace railgauge::check
