#include "analysis/report/matrix_sections.h"

#include <algorithm>
#include <map>
#include <optional>
#include <set>

#include <fmt/format.h>

#include "analysis/check/check_result.h"
#include "analysis/report/report.h"
#include "analysis/report/report_page.h"
#include "analysis/report/svg.h"
#include "harness/metric_names.h"
#include "harness/record_fields.h"
#include "harness/stats.h"
#include "records/pair_matrix_fields.h"
#include "records/peer_record.h"
#include "records/rdma_record.h"

namespace railgauge::report {
namespace {

namespace r = rdma::record;

using json = nlohmann::json;

// rdma.pair_matrix and rdma.tcp_pair_matrix: one record (rank 0's) holds the whole matrix, its
// bad pairs and the isolation's findings. Records of another shape are left out, never thrown on.
struct PairMatrixView {
  std::vector<std::string> labels;
  std::vector<std::vector<std::optional<double>>> bandwidth;
  std::vector<std::vector<bool>> bad;
  std::vector<std::vector<std::string>> bad_rows = {{"pair", "why"}};
  std::vector<std::vector<std::string>> finding_rows = {{"kind", "finding"}};
};

// The two endpoints an entry names, when both are in range.
std::optional<std::pair<std::size_t, std::size_t>>
pair_in_range(const std::pair<r::MatrixEndpointIndex, r::MatrixEndpointIndex> &ends,
              std::size_t n) {
  const auto in_range = [n](r::MatrixEndpointIndex e) {
    return e >= 0 && static_cast<std::size_t>(e) < n;
  };
  if (!in_range(ends.first) || !in_range(ends.second))
    return std::nullopt;
  return std::pair{static_cast<std::size_t>(ends.first), static_cast<std::size_t>(ends.second)};
}

std::optional<PairMatrixView> pair_matrix_view(const json &metrics) {
  const auto m = r::PairMatrixFields::read(metrics);
  if (!m)
    return std::nullopt;
  PairMatrixView v;
  for (const auto &e : m->endpoints)
    v.labels.push_back(e.label.value_or("?"));
  const std::size_t n = v.labels.size();
  v.bandwidth.assign(n, std::vector<std::optional<double>>(n));
  v.bad.assign(n, std::vector<bool>(n));
  for (const auto &p : m->pairs)
    // A pair that failed has no figure: not measured, rather than a 0 that flattens the scale.
    if (const auto ab = pair_in_range(p.endpoints, n); ab && !p.error && p.bandwidth_gbits_per_s)
      v.bandwidth[ab->first][ab->second] = v.bandwidth[ab->second][ab->first] =
          *p.bandwidth_gbits_per_s;
  for (const auto &b : m->bad_pairs)
    if (const auto ab = pair_in_range(b.endpoints, n)) {
      v.bad[ab->first][ab->second] = v.bad[ab->second][ab->first] = true;
      v.bad_rows.push_back({v.labels[ab->first] + " <-> " + v.labels[ab->second], b.why});
    }
  for (const auto &f : m->findings)
    v.finding_rows.push_back({f.kind, f.text});
  return v;
}

} // namespace

// ---------------------------------------------------------------- nvbandwidth matrices
// Imported nvbandwidth testcases (import.nvbandwidth.<testcase>, one record per cell with its
// row and column): one heat map per testcase and run, as nvbandwidth prints its matrix, a cell
// under 90% of the matrix's median crossed (a slow GPU, a slow link).
void nvbandwidth_section(Page &page, const analysis::RunSet &runs) {
  struct Matrix {
    std::string caption, row_kind, column_kind;
    std::map<std::pair<std::string, std::string>, double> cells;
  };
  std::map<std::string, Matrix> matrices;
  for (const auto &run : runs.runs) {
    const std::string label = run_label(runs, run);
    for (const auto &r : run.records) {
      namespace f = record_fields;
      namespace p = peer::record;
      const auto row = f::text(r.params, p::kRow), column = f::text(r.params, p::kColumn);
      const auto gbytes_per_s = f::number(r.metrics, metric::kBandwidthGbytesPerS);
      if (r.status != Status::ok || !r.key.starts_with(p::kNvbandwidthKeyPrefix) || !row ||
          !column || !gbytes_per_s)
        continue;
      Matrix &m = matrices[r.key.substr(std::string_view(p::kNvbandwidthKeyPrefix).size()) +
                           (label.empty() ? "" : " (" + label + ")")];
      m.caption = f::text(r.params, p::kCaption).value_or("");
      const auto kind = [&](const char *param, const char *none) {
        const std::string k = f::text(r.params, param).value_or("");
        return k.empty() ? std::string(none) : k;
      };
      m.row_kind = kind(p::kRowKind, "one row");
      m.column_kind = kind(p::kColumnKind, "column");
      m.cells[{*row, *column}] = *gbytes_per_s;
    }
  }
  if (matrices.empty())
    return;
  // A one-GPU run's testcases are single cells: one table for them, heat maps for the rest.
  std::vector<std::vector<std::string>> single = {{"testcase", "GB/s"}};
  for (auto it = matrices.begin(); it != matrices.end();)
    if (it->second.cells.size() == 1) {
      single.push_back({it->first, fmt::format("{:.4g}", it->second.cells.begin()->second)});
      it = matrices.erase(it);
    } else {
      ++it;
    }
  page.heading("nvbandwidth matrices");
  if (single.size() > 1) {
    page.para("Testcases of a single cell (one GPU):");
    page.table(single);
  }
  page.para(fmt::format("One heat map per testcase, as nvbandwidth prints it (GB/s); a cell under "
                        "{:.0f}% of its matrix's best is crossed (a slow GPU, a slower link).",
                        kOutlierShare * 100));
  for (const auto &[name, m] : matrices) {
    std::set<std::string, decltype(&check::natural_less)> rows(&check::natural_less),
        cols(&check::natural_less);
    std::vector<double> all;
    for (const auto &[rc, v] : m.cells) {
      rows.insert(rc.first);
      cols.insert(rc.second);
      all.push_back(v);
    }
    const double best = *std::max_element(all.begin(), all.end());
    const std::vector<std::string> row_labels(rows.begin(), rows.end()),
        col_labels(cols.begin(), cols.end());
    std::vector<std::vector<std::optional<double>>> values(
        row_labels.size(), std::vector<std::optional<double>>(col_labels.size()));
    std::vector<std::vector<bool>> bad(row_labels.size(),
                                       std::vector<bool>(col_labels.size(), false));
    std::vector<std::vector<std::string>> slow = {
        {m.row_kind, m.column_kind, "GB/s", "of the best"}};
    for (std::size_t i = 0; i < row_labels.size(); ++i)
      for (std::size_t j = 0; j < col_labels.size(); ++j)
        if (const auto it = m.cells.find({row_labels[i], col_labels[j]}); it != m.cells.end()) {
          values[i][j] = it->second;
          bad[i][j] = it->second < kOutlierShare * best;
          if (bad[i][j])
            slow.push_back({row_labels[i], col_labels[j], fmt::format("{:.4g}", it->second),
                            fmt::format("{:.0f}%", 100 * it->second / best)});
        }
    page.html +=
        "<figure>" +
        heat_map(name + (m.caption.empty() ? "" : ": " + m.caption), row_labels, col_labels, values,
                 bad, "GB/s", fmt::format("rows: {}, columns: {}", m.row_kind, m.column_kind),
                 fmt::format("under {:.0f}% of the best", kOutlierShare * 100)) +
        "</figure>\n";
    page.md += fmt::format("**{}**: {} cells, best {:.4g} GB/s; slow cells:\n\n", name,
                           m.cells.size(), best);
    if (slow.size() == 1)
      page.para("none");
    else
      page.table(slow);
  }
}

// ---------------------------------------------------------------- pair matrices
namespace {

using PairCells = std::map<std::pair<std::string, std::string>, std::vector<double>>;
using PairMedians = std::map<std::pair<std::string, std::string>, double>;

// A matrix of more endpoints than this is a fleet's: 2,000 nodes are 4 million cells (517 MB of
// SVG for two fleets of 2,000), too many to draw or to see one in. It is drawn as each
// endpoint's slowest pair, the lowest kMostBars of them, and its bad pairs listed up to
// kMostBadRows.
constexpr std::size_t kMostMatrixEndpoints = 64;
constexpr std::size_t kMostBars = 20;
constexpr std::size_t kMostBadRows = 200;

// Each endpoint's slowest pair as source or destination, the lowest kMostBars, as bars under
// the bad-pair line.
void slowest_pair_bars(Page &page, const std::string &id, const PairMedians &cells,
                       const std::vector<std::string> &labels, double best,
                       const std::string &unit) {
  std::map<std::string, double> slowest;
  for (const auto &[pair, m] : cells) {
    for (const auto &end : {pair.first, pair.second}) {
      const auto it = slowest.find(end);
      if (it == slowest.end() || m < it->second)
        slowest[end] = m;
    }
  }
  std::vector<std::pair<double, std::string>> order;
  for (const auto &[end, v] : slowest)
    order.emplace_back(v, end);
  std::sort(order.begin(), order.end());
  order.resize(std::min(order.size(), kMostBars));
  std::vector<std::string> names;
  std::vector<double> values;
  std::vector<bool> outlier;
  for (const auto &[v, end] : order) {
    names.push_back(end);
    values.push_back(v);
    outlier.push_back(v < kBadPairFraction * best);
  }
  const std::string title = fmt::format("{}: the {} endpoints of {} with the slowest pairs", id,
                                        names.size(), labels.size());
  page.html += "<figure>" +
               bar_chart(title, names, values, outlier, unit, kBadPairFraction * best,
                         fmt::format("{:.0f}% of the best pair", kBadPairFraction * 100), best) +
               "</figure>\n";
  page.md += "**" + title + "**\n\n";
  std::vector<std::vector<std::string>> rows = {{"endpoint", "slowest pair " + unit, "of best"}};
  for (std::size_t k = 0; k < names.size(); ++k)
    rows.push_back({names[k], fmt::format("{:.4g}", values[k]),
                    fmt::format("{:.0f}%", 100 * values[k] / best)});
  page.markdown_table(rows); // the bars stand for the table on the HTML page
}

void pair_matrix(Page &page, const std::string &id, const PairCells &cells,
                 const std::string &unit) {
  std::set<std::string, decltype(&check::natural_less)> names(&check::natural_less);
  PairMedians medians; // each pair's figure, once
  double best = 0;
  for (const auto &[pair, v] : cells) {
    names.insert(pair.first);
    names.insert(pair.second);
    best = std::max(best, medians[pair] = railgauge::median(v));
  }
  const std::vector<std::string> labels(names.begin(), names.end());
  const bool fleet = labels.size() > kMostMatrixEndpoints;
  std::vector<std::pair<double, std::vector<std::string>>> bad_pairs; // value, row
  if (fleet) { // the slowest first; a matrix's in the order of its rows and columns
    for (const auto &[pair, m] : medians)
      if (m < kBadPairFraction * best)
        bad_pairs.push_back({m, {pair.first, pair.second, fmt::format("{:.4g}", m)}});
    std::stable_sort(bad_pairs.begin(), bad_pairs.end(),
                     [](const auto &a, const auto &b) { return a.first < b.first; });
    slowest_pair_bars(page, id, medians, labels, best, unit);
  } else {
    std::map<std::string, std::size_t> at;
    for (std::size_t i = 0; i < labels.size(); ++i)
      at[labels[i]] = i;
    std::vector<std::vector<std::optional<double>>> values(
        labels.size(), std::vector<std::optional<double>>(labels.size()));
    std::vector<std::vector<bool>> bad(labels.size(), std::vector<bool>(labels.size()));
    for (const auto &[pair, m] : medians) {
      values[at[pair.first]][at[pair.second]] = m;
      bad[at[pair.first]][at[pair.second]] = m < kBadPairFraction * best;
    }
    for (std::size_t i = 0; i < labels.size(); ++i)
      for (std::size_t j = 0; j < labels.size(); ++j)
        if (bad[i][j])
          bad_pairs.push_back(
              {*values[i][j], {labels[i], labels[j], fmt::format("{:.4g}", *values[i][j])}});
    page.html += "<figure>" + heat_map(id, labels, labels, values, bad, unit) + "</figure>\n";
  }
  page.md +=
      fmt::format("**{}**: {} pairs, best {:.4g} {}; bad pairs:\n\n", id, cells.size(), best, unit);
  if (bad_pairs.empty()) {
    page.para("none");
    return;
  }
  // A matrix's bad pairs all (at most 64 x 63), in its order; a fleet's slowest first, capped.
  const std::size_t listed = fleet ? std::min(bad_pairs.size(), kMostBadRows) : bad_pairs.size();
  std::vector<std::vector<std::string>> rows = {{"source", "destination", unit}};
  for (std::size_t k = 0; k < listed; ++k)
    rows.push_back(bad_pairs[k].second);
  if (listed < bad_pairs.size())
    page.para(fmt::format("The {} slowest of {} bad pairs:", listed, bad_pairs.size()));
  page.table(rows);
}

} // namespace

void pair_section(Page &page, const analysis::RunSet &runs) {
  // (key, size) -> (src, dst) -> values
  std::map<std::string, std::map<std::pair<std::string, std::string>, std::vector<double>>> mats;
  std::map<std::string, std::string> units;
  for (const auto &run : runs.runs)
    for (const auto &r : run.records) {
      const char *src = r.params.contains("src") ? "src" : "src_rank";
      const char *dst = r.params.contains("dst") ? "dst" : "dst_rank";
      if (r.status != Status::ok || !r.params.contains(src) || !r.params.contains(dst))
        continue;
      const auto metric = compare::default_metric(r.metrics);
      if (metric.empty() || metric.find("latency") != std::string::npos ||
          metric.find("time_s") != std::string::npos)
        continue;
      const auto name = metric.substr(std::string("metrics.").size());
      const std::string id =
          r.key + (r.params.contains(metric::kSizeBytes)
                       ? " size " + tick_label(r.params[metric::kSizeBytes].get<double>(), true)
                       : "");
      units[id] = name;
      mats[id][{text(r.params[src]), text(r.params[dst])}].push_back(r.metrics[name].get<double>());
    }
  if (mats.empty())
    return;
  page.heading("Pair matrices");
  page.para(fmt::format("Rows: source, columns: destination. A pair under {:.0f}% of the "
                        "matrix's best value is marked bad (ClusterKit's rule).",
                        kBadPairFraction * 100));
  for (const auto &[id, cells] : mats)
    pair_matrix(page, id, cells, units[id]);
}

void nic_matrix_section(Page &page, const analysis::RunSet &runs) {
  bool headed = false;
  for (const auto &run : runs.runs)
    for (const auto &r : run.records) {
      if (r.status != Status::ok || !r.key.ends_with("pair_matrix"))
        continue;
      const auto v = pair_matrix_view(r.metrics);
      if (!v || v->labels.empty())
        continue;
      if (!headed) {
        page.heading("NIC pair matrices");
        page.para("Bandwidth of every pair tested (both halves of the symmetric matrix); bad "
                  "pairs by the run's thresholds (ClusterKit's defaults: latency over 2.1x the "
                  "fleet minimum, bandwidth under 93% of its maximum) are marked, then what the "
                  "retests against known-good partners named.");
        headed = true;
      }
      const std::string id = r.key + " (" + r.run + ")";
      page.html += "<figure>" + heat_map(id, v->labels, v->labels, v->bandwidth, v->bad, "Gb/s") +
                   "</figure>\n";
      page.md += fmt::format("**{}**: {} endpoints, {} bad pairs, {} findings\n\n", id,
                             v->labels.size(), v->bad_rows.size() - 1, v->finding_rows.size() - 1);
      if (v->bad_rows.size() > 1)
        page.table(v->bad_rows);
      if (v->finding_rows.size() > 1)
        page.table(v->finding_rows);
    }
}

} // namespace railgauge::report
