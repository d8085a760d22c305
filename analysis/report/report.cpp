#include "analysis/report/report.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <functional>
#include <map>
#include <set>
#include <tuple>

#include <fmt/format.h>

#include "analysis/check/check_output.h"
#include "analysis/check/check_result.h"
#include "analysis/report/fabric_load_sections.h"
#include "analysis/report/report_page.h"
#include "analysis/report/svg.h"
#include "harness/error.h"
#include "harness/stats.h"
#include "records/collective_record.h"
#include "records/gemm_record.h"
#include "records/memory_record.h"
#include "records/offload_record.h"
#include "records/rdma_record.h"

namespace railgauge::report {
namespace {

using json = nlohmann::json;

// Params derived while running, naming the part, or saying where a record came from: not part
// of a curve's identity (a curve is a benchmark and its setting, over size, in one run).
// grid_blocks: the HBM kernels' launch, which grows with the size (on the H200 run every copy
// size had its own, and each point became a curve of one).
const std::set<std::string> kNotSeries = {
    "size_bytes", "passes_per_call", "threads_used", "total_bytes", "gpu",           "rank",
    "numa_node",  "device",          "count",        "source",      "source_format", "tool",
    "iterations", "warmup",          "timeout_s",    "grid_blocks"};

// The parts of one point, as the plot's band shows them: lowest and highest value.
std::pair<double, double> lowest_highest(const std::vector<double> &v) {
  const auto [lo, hi] = std::minmax_element(v.begin(), v.end());
  return {*lo, *hi};
}

// The params of a family's records that name a curve: those that vary, and not only from run to
// run (a world size that differs between a 1-node and a 10-node run is said by the run label and
// the runs table, not in every name).
std::set<std::string> series_params(const analysis::RunSet &runs,
                                    const std::function<bool(const Record &)> &wanted) {
  std::map<std::string, std::set<std::string>> values_of;
  std::map<std::string, bool> varies_within_a_run;
  for (const auto &run : runs.runs) {
    std::map<std::string, std::set<std::string>> in_run;
    for (const auto &r : run.records)
      if (wanted(r))
        for (const auto &[k, v] : r.params.items())
          if (!kNotSeries.count(k)) {
            values_of[k].insert(text(v));
            in_run[k].insert(text(v));
          }
    for (const auto &[k, values] : in_run)
      varies_within_a_run[k] = varies_within_a_run[k] || values.size() > 1;
  }
  const bool one_run = run_ids(runs).size() < 2;
  std::set<std::string> out;
  for (const auto &[k, values] : values_of)
    if (values.size() > 1 && (varies_within_a_run[k] || one_run))
      out.insert(k);
  return out;
}

// A curve's name: the key without its family, the naming params, and the run.
std::string series_name(const Record &r, const std::set<std::string> &naming,
                        const std::string &run) {
  std::string name = r.key.substr(r.key.find('.') + 1);
  for (const auto &[k, v] : r.params.items())
    if (naming.count(k))
      name += " " + k + "=" + text(v);
  return run.empty() ? name : name + " (" + run + ")";
}

// ---------------------------------------------------------------- verdict
// The check result's fields this section reads, as check_output.cpp writes them.
const json *field_of(const json &j, const char *name) {
  return j.is_object() && j.contains(name) ? &j.at(name) : nullptr;
}

std::string check_result_problem(const json &check) {
  if (!check.is_object())
    return "it is not a JSON object";
  const json *schema = field_of(check, "schema");
  if (!schema || *schema != check::kCheckSchema)
    return fmt::format("its schema is not {}", check::kCheckSchema);
  const json *rules = field_of(check, "rules");
  if (!rules || !field_of(*rules, "name") || !field_of(*rules, "file"))
    return "'rules' is not an object with a name and a file";
  const json *summary = field_of(check, "summary");
  if (!field_of(check, "verdict") || !summary)
    return "it has no verdict or no summary";
  for (const char *f : {"nodes", "nodes_fail", "nodes_warn", "violations", "missing"})
    if (!field_of(*summary, f))
      return fmt::format("the summary has no '{}'", f);
  const json *parts = field_of(check, "parts");
  if (!parts || !parts->is_array())
    return "'parts' is not a list";
  for (const auto &p : *parts) {
    const json *findings = field_of(p, "findings");
    if (!field_of(p, "host") || !field_of(p, "label") || !findings || !findings->is_array())
      return "a part is not an object with a host, a label and a list of findings";
    for (const auto &f : *findings) {
      const json *missing = field_of(f, "missing");
      if (!missing || !missing->is_boolean())
        return "a finding has no true/false 'missing'";
      for (const char *name : {"rule", "level", "detail", "text"})
        if (!field_of(f, name))
          return fmt::format("a finding has no '{}'", name);
    }
  }
  const json *drain = field_of(check, "drain");
  if (!drain || !drain->is_array())
    return "'drain' is not a list";
  return "";
}

void verdict_section(Page &page, const json &check) {
  page.heading("Verdict");
  page.para(fmt::format("Rules {} ({}): {} — {} node(s), {} fail, {} warn; {} violation(s), {} "
                        "missing.",
                        text(check["rules"]["name"]), text(check["rules"]["file"]),
                        text(check["verdict"]), text(check["summary"]["nodes"]),
                        text(check["summary"]["nodes_fail"]), text(check["summary"]["nodes_warn"]),
                        text(check["summary"]["violations"]), text(check["summary"]["missing"])));
  // Violations one per row; what could not be judged grouped by rule (a CPU-only run against a
  // GPU profile misses hundreds of values, and one line per rule says it).
  std::vector<std::vector<std::string>> rows = {{"host", "part", "level", "rule", "finding"}};
  std::vector<std::string> cls = {""};
  std::map<std::string, std::tuple<std::string, int, std::string>> missing; // rule -> level, n, eg
  for (const auto &p : check["parts"])
    for (const auto &f : p["findings"]) {
      if (f["missing"].get<bool>()) {
        auto &[level, n, example] = missing[text(f["rule"])];
        if (level.empty() || (level != "fail" && text(f["level"]) == "fail"))
          level = text(f["level"]);
        if (example.empty())
          example = text(p["host"]) + " " + text(p["label"]) + ": " + text(f["detail"]);
        ++n;
        continue;
      }
      rows.push_back(
          {text(p["host"]), text(p["label"]), text(f["level"]), text(f["rule"]), text(f["text"])});
      cls.push_back(f["level"] == "fail" ? "fail" : "warn");
    }
  if (rows.size() == 1)
    page.para("No rule violated.");
  else
    page.table(rows, cls);
  if (!missing.empty()) {
    page.para("Rules that could not judge every value (missing records or metrics, a fleet too "
              "small); a missing value is never a pass:");
    std::vector<std::vector<std::string>> m = {{"rule", "level", "values", "for example"}};
    std::vector<std::string> mcls = {""};
    for (const auto &[rule, v] : missing) {
      const auto &[level, n, example] = v;
      m.push_back({rule, level, std::to_string(n), example});
      mcls.push_back(level == "fail" ? "fail" : level == "warn" ? "warn" : "");
    }
    page.table(m, mcls);
  }
  if (!check["drain"].empty()) {
    std::string d;
    for (const auto &h : check["drain"])
      d += (d.empty() ? "" : ", ") + text(h);
    page.para("Drain: " + d);
  }
}

// ---------------------------------------------------------------- GEMM vs t
void gemm_section(Page &page, const analysis::RunSet &runs) {
  // One chart per sweep, grouped as the TP table groups (gemm::record::TpPointView) but with
  // every GPU's point of a cell together: label -> op -> tp -> points.
  using Points = std::vector<gemm::record::TpPointView>;
  std::map<std::string, std::map<std::string, std::map<double, Points>>> groups;
  for (const auto &run : runs.runs)
    for (const auto &r : run.records)
      if (auto v = gemm::record::tp_point_view(r); v && v->status == Status::ok)
        groups[v->group_label(false)][v->op][static_cast<double>(v->tp)].push_back(std::move(*v));
  if (groups.empty())
    return;
  page.heading("GEMM efficiency versus tensor parallelism t");
  page.para("Each line is one GEMM of a transformer layer; x: tensor-parallel degree t (the "
            "shard each GPU computes shrinks with t), y: the efficiency (fraction of the dense "
            "peak) where every point of the chart has one, else TFLOP/s; median over GPUs and "
            "ranks.");
  for (const auto &[group, ops] : groups) {
    // As the TP table: efficiency only when every point has it, never the two mixed.
    bool all_efficiency = true;
    std::set<double> tps;
    std::vector<std::string> op_order;
    for (const auto &[op, by_tp] : ops) {
      op_order.push_back(op);
      for (const auto &[tp, points] : by_tp) {
        tps.insert(tp);
        for (const auto &p : points)
          all_efficiency = all_efficiency && p.efficiency.has_value();
      }
    }
    std::stable_sort(op_order.begin(), op_order.end(), [](const auto &a, const auto &b) {
      return std::pair(gemm::record::op_block_rank(a), a) <
             std::pair(gemm::record::op_block_rank(b), b);
    });
    const std::string unit = all_efficiency ? "efficiency (fraction of peak)" : "TFLOP/s";
    std::vector<Series> series;
    std::vector<std::vector<std::string>> rows = {{"op"}};
    for (double t : tps)
      rows[0].push_back(fmt::format("t={:g}", t));
    for (const auto &op : op_order) {
      const auto &by_tp = ops.at(op);
      Series s{op, {}, {}};
      std::vector<std::string> row = {op};
      for (double t : tps) {
        const auto it = by_tp.find(t);
        if (it == by_tp.end()) {
          row.push_back("-");
          continue;
        }
        std::vector<double> values;
        for (const auto &p : it->second)
          values.push_back(all_efficiency ? *p.efficiency : p.tflops);
        const double v = railgauge::median(values);
        s.points.emplace_back(t, v);
        row.push_back(fmt::format("{:.3g}", v));
      }
      series.push_back(std::move(s));
      rows.push_back(row);
    }
    page.html += "<figure>" +
                 line_chart(group, "tensor-parallel degree t", unit, series, true, false) +
                 "</figure>\n";
    page.md += "**" + group + "** (" + unit + ")\n\n";
    page.markdown_table(rows); // the chart stands for the table on the HTML page
  }
}

// ---------------------------------------------------------------- bandwidth vs size
struct FamilyMetric {
  const char *family, *metric, *unit;
};
constexpr FamilyMetric kFamilies[] = {
    {memory::record::kFamily, memory::record::kBandwidthGbytesPerS, "GB/s"},
    {offload::record::kFamily, offload::record::kBandwidthGbytesPerS, "GB/s"},
    {collectives::record::kFamily, collectives::record::kBusbwGbytesPerS, "bus bandwidth GB/s"},
    {rdma::record::kFamily, rdma::record::kBandwidthGbitsPerS, "Gb/s"},
};

void bandwidth_section(Page &page, const analysis::RunSet &runs) {
  bool headed = false;
  for (const auto &fm : kFamilies) {
    const auto wanted = [&](const Record &r) {
      return r.key.starts_with(std::string(fm.family) + ".") && r.status == Status::ok &&
             r.params.contains("size_bytes") && r.params["size_bytes"].is_number() &&
             r.metrics.contains(fm.metric) && r.metrics[fm.metric].is_number() &&
             !r.params.contains("src") && !r.params.contains("src_rank") && !is_fabric_load(r);
    };
    const auto naming = series_params(runs, wanted);
    std::map<std::string, std::map<double, std::vector<double>>> curves;
    for (const auto &run : runs.runs) {
      const std::string label = run_label(runs, run);
      for (const auto &r : run.records)
        if (wanted(r))
          curves[series_name(r, naming, label)][r.params["size_bytes"].get<double>()].push_back(
              r.metrics[fm.metric].get<double>());
    }
    if (curves.empty())
      continue;
    if (!headed) {
      page.heading("Bandwidth versus size");
      page.para("x: bytes per buffer or message (log scale), y: bandwidth (GB = 1e9 bytes, "
                "Gb = 1e9 bits); one line per benchmark, setting and run, at the median of its "
                "parts (GPUs, ranks, hosts), the shaded band from the lowest part to the "
                "highest, so that a slow part shows as a band below the line.");
      headed = true;
    }
    std::vector<Series> series;
    std::vector<std::vector<std::string>> rows = {
        {"series", "size_bytes", fm.unit, "parts", "lowest", "highest"}};
    for (const auto &[name, by_size] : curves) {
      Series s{name, {}, {}};
      for (const auto &[size, values] : by_size) {
        const double m = railgauge::median(values);
        const auto [lo, hi] = lowest_highest(values);
        s.points.emplace_back(size, m);
        s.spread.emplace_back(lo, hi);
        rows.push_back({name, tick_label(size, true), fmt::format("{:.4g}", m),
                        std::to_string(values.size()), fmt::format("{:.4g}", lo),
                        fmt::format("{:.4g}", hi)});
      }
      series.push_back(std::move(s));
    }
    page.html += "<figure>" +
                 line_chart(std::string(fm.family) + ": " + fm.unit + " versus size", "size",
                            fm.unit, series, true, true) +
                 "</figure>\n";
    page.md += "**" + std::string(fm.family) + "** (" + fm.unit + ")\n\n";
    page.markdown_table(rows);
  }
}

// ---------------------------------------------------------------- per-GPU host copies
// Host<->GPU copies per GPU at each GPU's largest size: one bar per host and GPU, a GPU under 85%
// of the best drawn red, as the profiles' h2d-within-node rule judges it (half the GPUs of a node
// 20% slower shows as half red; a median would sit between the halves).
constexpr double kOutlierShare = 0.85;

void per_gpu_section(Page &page, const analysis::RunSet &runs) {
  // key -> (host gpu) -> (size, values at it)
  std::map<std::string, std::map<std::string, std::pair<double, std::vector<double>>>> by_key;
  for (const auto &run : runs.runs)
    for (const auto &r : run.records) {
      const auto v = offload::record::offload_point_view(r);
      if (r.status != Status::ok || !v || !v->gpu || !v->size_bytes || !v->bandwidth_gbytes_per_s)
        continue;
      auto &[at, values] = by_key[r.key][fmt::format("{}\ngpu{}", r.host, *v->gpu)];
      if (*v->size_bytes > at) {
        at = *v->size_bytes;
        values.clear();
      }
      if (*v->size_bytes == at)
        values.push_back(*v->bandwidth_gbytes_per_s);
    }
  bool headed = false;
  for (const auto &[key, parts] : by_key) {
    if (parts.size() < 2)
      continue;
    if (!headed) {
      page.heading("Host and GPU copies per GPU");
      page.para(fmt::format("Each GPU's bandwidth at its largest size; red: under {:.0f}% of the "
                            "best GPU.",
                            kOutlierShare * 100));
      headed = true;
    }
    std::set<std::string> hosts;
    for (const auto &[part, at] : parts)
      hosts.insert(part.substr(0, part.find('\n')));
    std::vector<std::string> labels;
    std::vector<double> values;
    for (const auto &[part, at] : parts) {
      const auto cut = part.find('\n');
      // "gpu3" on one host, "node07 gpu3" across several.
      labels.push_back(hosts.size() == 1 ? part.substr(cut + 1)
                                         : part.substr(0, cut) + " " + part.substr(cut + 1));
      values.push_back(railgauge::median(at.second));
    }
    const double best = *std::max_element(values.begin(), values.end());
    std::vector<bool> outlier;
    std::vector<std::vector<std::string>> rows = {{"GPU", "GB/s", "of the best"}};
    for (std::size_t i = 0; i < values.size(); ++i) {
      outlier.push_back(values[i] < kOutlierShare * best);
      rows.push_back({labels[i], fmt::format("{:.4g}", values[i]),
                      fmt::format("{:.0f}%", 100 * values[i] / best)});
    }
    page.html +=
        "<figure>" +
        bar_chart(key + ": GB/s per GPU", labels, values, outlier, "GB/s", kOutlierShare * best,
                  fmt::format("{:.0f}% of the best", kOutlierShare * 100)) +
        "</figure>\n";
    page.md += "**" + key + "** per GPU\n\n";
    page.markdown_table(rows);
  }
}

// ---------------------------------------------------------------- latency percentiles
// RDMA (and imported perftest) latency: p50, p99 and the maximum against size, per benchmark and
// setting, so that a tail shows as the gap between the lines.
void latency_section(Page &page, const analysis::RunSet &runs) {
  std::map<std::string, std::map<double, std::vector<double>>> curves;
  // The view of an ok latency point with its size and summary, else nullopt.
  const auto latency_point = [](const Record &r) -> std::optional<rdma::record::PairPointView> {
    auto v = rdma::record::pair_point_view(r);
    if (r.status != Status::ok || !v || !v->size_bytes || !v->latency_s)
      return std::nullopt;
    return v;
  };
  const auto wanted = [&](const Record &r) { return latency_point(r).has_value(); };
  const auto naming = series_params(runs, wanted);
  for (const auto &run : runs.runs) {
    const std::string label = run_label(runs, run);
    for (const auto &r : run.records) {
      const auto v = latency_point(r);
      if (!v)
        continue;
      const std::string name = series_name(r, naming, "");
      const auto &l = *v->latency_s;
      for (const auto &[stat, value] :
           {std::pair{"p50", l.p50_s}, std::pair{"p99", l.p99_s}, std::pair{"max", l.max_s}})
        if (value)
          curves[name + " " + stat + (label.empty() ? "" : " (" + label + ")")][*v->size_bytes]
              .push_back(*value * 1e6);
    }
  }
  if (curves.empty())
    return;
  page.heading("Latency versus size");
  page.para("x: message bytes (log scale), y: latency in microseconds (log scale); per benchmark "
            "the median (p50), the 99th percentile and the maximum: a tail is the gap above "
            "p50.");
  std::vector<Series> series;
  std::vector<std::vector<std::string>> rows = {{"series", "size_bytes", "us"}};
  for (const auto &[name, by_size] : curves) {
    Series s{name, {}, {}};
    for (const auto &[size, values] : by_size) {
      s.points.emplace_back(size, railgauge::median(values));
      rows.push_back(
          {name, tick_label(size, true), fmt::format("{:.4g}", railgauge::median(values))});
    }
    series.push_back(std::move(s));
  }
  page.html += "<figure>" +
               line_chart("rdma: latency versus size", "size", "microseconds (log scale)", series,
                          true, true, true) +
               "</figure>\n";
  page.markdown_table(rows);
}

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
      if (r.status != Status::ok || !r.key.starts_with("import.nvbandwidth.") ||
          !r.params.contains("row") || !r.params.contains("column") ||
          !r.metrics.contains("bandwidth_gbytes_per_s") ||
          !r.metrics["bandwidth_gbytes_per_s"].is_number())
        continue;
      Matrix &m = matrices[r.key.substr(19) + (label.empty() ? "" : " (" + label + ")")];
      m.caption = r.params.contains("caption") ? text(r.params["caption"]) : "";
      const auto kind = [&](const char *param, const char *none) {
        const std::string k = r.params.contains(param) ? text(r.params[param]) : "";
        return k.empty() ? std::string(none) : k;
      };
      m.row_kind = kind("row_kind", "one row");
      m.column_kind = kind("column_kind", "column");
      m.cells[{text(r.params["row"]), text(r.params["column"])}] =
          r.metrics["bandwidth_gbytes_per_s"].get<double>();
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
          r.key + (r.params.contains("size_bytes")
                       ? " size " + tick_label(r.params["size_bytes"].get<double>(), true)
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
  for (const auto &[id, cells] : mats) {
    std::set<std::string, decltype(&check::natural_less)> names(&check::natural_less);
    double best = 0;
    for (const auto &[pair, v] : cells) {
      names.insert(pair.first);
      names.insert(pair.second);
      best = std::max(best, railgauge::median(v));
    }
    const std::vector<std::string> labels(names.begin(), names.end());
    std::vector<std::vector<std::optional<double>>> values(
        labels.size(), std::vector<std::optional<double>>(labels.size()));
    std::vector<std::vector<bool>> bad(labels.size(), std::vector<bool>(labels.size()));
    std::vector<std::vector<std::string>> bad_rows = {{"source", "destination", units[id]}};
    for (std::size_t i = 0; i < labels.size(); ++i)
      for (std::size_t j = 0; j < labels.size(); ++j) {
        const auto it = cells.find({labels[i], labels[j]});
        if (it == cells.end())
          continue;
        const double v = railgauge::median(it->second);
        values[i][j] = v;
        bad[i][j] = v < kBadPairFraction * best;
        if (bad[i][j])
          bad_rows.push_back({labels[i], labels[j], fmt::format("{:.4g}", v)});
      }
    page.html += "<figure>" + heat_map(id, labels, labels, values, bad, units[id]) + "</figure>\n";
    page.md += fmt::format("**{}**: {} pairs, best {:.4g} {}; bad pairs:\n\n", id, cells.size(),
                           best, units[id]);
    if (bad_rows.size() == 1)
      page.para("none");
    else
      page.table(bad_rows);
  }
}

// ---------------------------------------------------------------- NIC pair matrices
// rdma.pair_matrix and rdma.tcp_pair_matrix: one record (rank 0's) holds the whole matrix, its
// bad pairs and the isolation's findings. Records of another shape are left out, never thrown on.
struct PairMatrixView {
  std::vector<std::string> labels;
  std::vector<std::vector<std::optional<double>>> bandwidth;
  std::vector<std::vector<bool>> bad;
  std::vector<std::vector<std::string>> bad_rows = {{"pair", "why"}};
  std::vector<std::vector<std::string>> finding_rows = {{"kind", "finding"}};
};

std::optional<std::size_t> endpoint_index(const json &v, std::size_t n) {
  if (!v.is_number_integer() || v.get<std::int64_t>() < 0 ||
      static_cast<std::size_t>(v.get<std::int64_t>()) >= n)
    return std::nullopt;
  return static_cast<std::size_t>(v.get<std::int64_t>());
}

// The two endpoints an entry names ("endpoints": [a, b]), when both are in range.
std::optional<std::pair<std::size_t, std::size_t>> pair_of(const json &entry, std::size_t n) {
  if (!entry.is_object() || !entry.contains("endpoints") || !entry["endpoints"].is_array() ||
      entry["endpoints"].size() != 2)
    return std::nullopt;
  const auto a = endpoint_index(entry["endpoints"][0], n);
  const auto b = endpoint_index(entry["endpoints"][1], n);
  if (!a || !b)
    return std::nullopt;
  return std::pair{*a, *b};
}

std::optional<PairMatrixView> pair_matrix_view(const json &m) {
  if (!m.is_object() || !m.contains("endpoints") || !m["endpoints"].is_array() ||
      !m.contains("pairs") || !m["pairs"].is_array())
    return std::nullopt;
  PairMatrixView v;
  for (const auto &e : m["endpoints"])
    v.labels.push_back(e.is_object() && e.contains("label") ? text(e["label"]) : "?");
  const std::size_t n = v.labels.size();
  v.bandwidth.assign(n, std::vector<std::optional<double>>(n));
  v.bad.assign(n, std::vector<bool>(n));
  for (const auto &p : m["pairs"])
    // A pair that failed has no figure: not measured, rather than a 0 that flattens the scale.
    if (const auto ab = pair_of(p, n); ab && !p.contains("error") &&
                                       p.contains("bandwidth_gbits_per_s") &&
                                       p["bandwidth_gbits_per_s"].is_number()) {
      const double gbits = p["bandwidth_gbits_per_s"].get<double>();
      v.bandwidth[ab->first][ab->second] = v.bandwidth[ab->second][ab->first] = gbits;
    }
  if (m.contains("bad_pairs") && m["bad_pairs"].is_array())
    for (const auto &b : m["bad_pairs"])
      if (const auto ab = pair_of(b, n)) {
        v.bad[ab->first][ab->second] = v.bad[ab->second][ab->first] = true;
        v.bad_rows.push_back({v.labels[ab->first] + " <-> " + v.labels[ab->second],
                              b.contains("why") ? text(b["why"]) : ""});
      }
  if (m.contains("findings") && m["findings"].is_array())
    for (const auto &f : m["findings"])
      if (f.is_object() && f.contains("text"))
        v.finding_rows.push_back({f.contains("kind") ? text(f["kind"]) : "", text(f["text"])});
  return v;
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

// ---------------------------------------------------------------- comparison
void comparison_section(Page &page, const compare::Comparison &c) {
  for (const auto &line : compare::preamble(c))
    page.para(line);
  page.heading("Summary per family");
  page.para("Geometric mean over the points compared of the speedup against " + c.labels[0] +
            " (> 1: better; time and latency inverted).");
  std::vector<std::vector<std::string>> rows = {
      {"family", "compared", "speedup", "points", "better", "worse", "within noise"}};
  for (const auto &s : c.families)
    rows.push_back({s.group, c.labels[s.input] + " vs " + c.labels[0],
                    fmt::format("{:.3f}", s.geomean_speedup), std::to_string(s.points),
                    std::to_string(s.better), std::to_string(s.worse),
                    std::to_string(s.within_noise)});
  page.table(rows);
  // Ratio versus size per key and input.
  std::map<std::string, std::vector<Series>> by_key;
  for (std::size_t i = 1; i < c.labels.size(); ++i) {
    std::map<std::string, Series> series;
    for (const auto &p : c.points) {
      if (!p.params.contains("size_bytes") || !p.ratio[i - 1])
        continue;
      std::string name = c.labels[i] + "/" + c.labels[0];
      for (const auto &[k, v] : p.params.items())
        if (!kNotSeries.count(k))
          name += " " + k + "=" + text(v);
      auto &s = series[p.key + "\n" + name];
      s.name = name;
      s.points.emplace_back(p.params["size_bytes"].get<double>(), *p.ratio[i - 1]);
    }
    for (auto &[k, s] : series) {
      std::sort(s.points.begin(), s.points.end());
      by_key[k.substr(0, k.find('\n'))].push_back(s);
    }
  }
  if (!by_key.empty())
    page.heading("Ratio versus size");
  for (const auto &[key, series] : by_key)
    page.html += "<figure>" +
                 line_chart(key + ": ratio of the metric", "size", "ratio", series, true, true) +
                 "</figure>\n";
  page.heading("Per point");
  std::vector<std::vector<std::string>> pts = {{"key", "params", "metric"}};
  for (const auto &l : c.labels)
    pts[0].push_back(l);
  for (std::size_t i = 1; i < c.labels.size(); ++i) {
    pts[0].push_back(c.labels[i] + "/" + c.labels[0]);
    pts[0].push_back("verdict");
  }
  std::vector<std::string> cls = {""};
  for (const auto &p : c.points) {
    std::string params;
    for (const auto &[k, v] : p.params.items())
      params += (params.empty() ? "" : " ") + k + "=" + text(v);
    std::vector<std::string> row = {p.key, params, p.metric};
    for (std::size_t i = 0; i < p.sides.size(); ++i)
      row.push_back(compare::value_text(p, i));
    std::string worst;
    for (std::size_t i = 1; i < p.sides.size(); ++i) {
      row.push_back(p.ratio[i - 1] ? fmt::format("{:.3f}", *p.ratio[i - 1]) : "-");
      row.push_back(p.verdict[i - 1]);
      if (p.verdict[i - 1].starts_with("worse"))
        worst = "warn";
    }
    pts.push_back(row);
    cls.push_back(worst);
  }
  page.table(pts, cls);
}

constexpr const char *kStyle =
    "body{font-family:system-ui,sans-serif;margin:24px;color:#222;max-width:1100px}"
    "table{border-collapse:collapse;margin:8px 0 16px;font-size:13px}"
    "th,td{border:1px solid #ccc;padding:3px 8px;text-align:left}th{background:#f3f3f3}"
    "tr.fail td{background:#fde2e2}tr.warn td{background:#fff4d6}"
    "figure{margin:8px 0 20px}h2{border-bottom:1px solid #ddd;padding-bottom:4px}"
    "p.meta{color:#666;font-size:12px}";

} // namespace

void check_result_for_report(const nlohmann::json &check, const std::string &where) {
  if (const auto problem = check_result_problem(check); !problem.empty())
    throw InputError(fmt::format("not a check result: {}", problem), where,
                     "give the file railgauge check --json FILE wrote");
}

// "run N" of the legends: its run id, hosts and records, when there are several runs.
void runs_table(Page &page, const analysis::RunSet &runs) {
  const auto ids = run_ids(runs);
  if (ids.size() < 2)
    return;
  std::vector<std::vector<std::string>> rows = {{"run", "run id", "hosts", "records"}};
  for (std::size_t i = 0; i < ids.size(); ++i) {
    std::set<std::string> hosts;
    std::size_t records = 0;
    for (const auto &run : runs.runs)
      for (const auto &r : run.records)
        if (r.run == ids[i]) {
          hosts.insert(r.host);
          ++records;
        }
    std::string host_text = *hosts.begin();
    if (hosts.size() > 1)
      host_text += fmt::format(" and {} more", hosts.size() - 1);
    rows.push_back({fmt::format("run {}", i + 1), ids[i], host_text, std::to_string(records)});
  }
  page.heading("Runs");
  page.table(rows);
}

// What the loader could not read (a record line cut in half, a run.json that is no JSON, a path
// it cannot open, a copy loaded once): the page draws the rest, and must say what it left out.
void input_problems_section(Page &page, const analysis::RunSet &runs) {
  if (runs.problems.empty())
    return;
  page.heading("Input problems");
  page.para(fmt::format("{} line{} or path{} could not be read, or were loaded once; nothing of "
                        "them is in the figures below:",
                        runs.problems.size(), runs.problems.size() == 1 ? "" : "s",
                        runs.problems.size() == 1 ? "" : "s"));
  std::vector<std::vector<std::string>> rows{{"problem"}};
  for (const auto &p : runs.problems)
    rows.push_back({p});
  page.table(rows, std::vector<std::string>(rows.size(), "warn"));
}

Report build_report(const ReportInput &in) {
  Page page;
  std::string meta;
  if (in.runs) {
    std::set<std::string> hosts;
    std::map<std::string, int> status;
    for (const auto &run : in.runs->runs)
      for (const auto &r : run.records) {
        hosts.insert(r.host);
        ++status[std::string(to_string(r.status))];
      }
    std::string counts;
    for (const auto &[s, n] : status)
      counts += fmt::format("{}{} {}", counts.empty() ? "" : ", ", n, s);
    meta = fmt::format("{} run director{}, {} host{}, records: {}.", in.runs->runs.size(),
                       in.runs->runs.size() == 1 ? "y" : "ies", hosts.size(),
                       hosts.size() == 1 ? "" : "s", counts.empty() ? "none" : counts);
  } else if (in.comparison) {
    meta = "Comparison of";
    for (std::size_t i = 0; i < in.comparison->labels.size(); ++i)
      meta += fmt::format("{} {} ({} run{})", i ? "," : "", in.comparison->labels[i],
                          in.comparison->inputs[i].size(),
                          in.comparison->inputs[i].size() == 1 ? "" : "s");
    meta += ".";
  }
  page.md = "# " + in.title + "\n\n" + meta + "\n";
  if (in.runs) {
    runs_table(page, *in.runs);
    input_problems_section(page, *in.runs);
  }
  if (in.check)
    verdict_section(page, *in.check);
  if (in.runs) {
    gemm_section(page, *in.runs);
    bandwidth_section(page, *in.runs);
    per_gpu_section(page, *in.runs);
    latency_section(page, *in.runs);
    nvbandwidth_section(page, *in.runs);
    pair_section(page, *in.runs);
    nic_matrix_section(page, *in.runs);
    fabric_load_sections(page, *in.runs);
  }
  if (in.comparison)
    comparison_section(page, *in.comparison);
  Report out;
  out.html = "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>" +
             xml_escape(in.title) + "</title><style>" + kStyle + "</style></head><body>\n<h1>" +
             xml_escape(in.title) + "</h1>\n<p class=\"meta\">" + xml_escape(meta) + "</p>\n" +
             page.html + "</body></html>\n";
  out.markdown = page.md;
  return out;
}

} // namespace railgauge::report
