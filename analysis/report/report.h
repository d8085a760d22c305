#pragma once
// `railgauge report`: one self-contained HTML page (inline SVG and CSS, no scripts, nothing
// fetched) and its markdown twin, for a run (or many) or for a comparison:
//   - the verdict table, when given a check JSON (railgauge check --json);
//   - GEMM efficiency (else TFLOP/s) versus tensor-parallel degree t, one line per GEMM (op);
//   - bandwidth versus message/buffer size per family (memory, offload: GB/s; collectives: bus
//     bandwidth GB/s; rdma: Gb/s);
//   - pair matrices as heat maps for records with src/dst params, pairs under 93% of the best
//     marked bad (ClusterKit's rule);
//   - the burn-in per GPU: a phase x GPU grid, each phase's figure per GPU against its floor
//     (--rules), and each GPU's figure, power and SM clock second by second;
//   - for a comparison: the per-family summary and ratio versus size per key.
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "analysis/check/rules.h"
#include "analysis/compare/compare.h"
#include "analysis/report/report_page.h"
#include "analysis/run_set.h"

namespace railgauge::report {

struct ReportInput {
  std::string title;
  const analysis::RunSet *runs = nullptr;          // a run report, or
  const compare::Comparison *comparison = nullptr; // a comparison report
  std::optional<nlohmann::json> check;             // railgauge.check/1, optional
  const check::RuleSet *rules = nullptr;           // report --rules: the burn-in's floors drawn
  // Sections written after the others (report --history: a host's parts over time).
  std::vector<std::function<void(Page &)>> sections;
};

struct Report {
  std::string html;
  std::string markdown;
};

// A GPU's host<->GPU copies, or a cell of an nvbandwidth matrix, under this share of the best is
// drawn red, as the profiles' h2d-within-node rule judges it (half the GPUs of a node 20% slower
// shows as half red; a median would sit between the halves).
inline constexpr double kOutlierShare = 0.85;

// Pairs under this fraction of the matrix's best value are marked bad (ClusterKit: 93%).
inline constexpr double kBadPairFraction = 0.93;

// Checks that `check` is what `railgauge check --json` writes, as far as the verdict section reads
// it; throws InputError naming `where` and the first field that is missing or of the wrong type.
void check_result_for_report(const nlohmann::json &check, const std::string &where);

// `input.check`, when given, has passed check_result_for_report.
Report build_report(const ReportInput &input);

} // namespace railgauge::report
