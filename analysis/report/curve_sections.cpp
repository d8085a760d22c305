#include "analysis/report/curve_sections.h"

#include <algorithm>
#include <map>
#include <optional>
#include <set>

#include <functional>

#include <fmt/format.h>

#include "analysis/report/fabric_load_sections.h"
#include "analysis/report/gpu_state.h"
#include "analysis/report/report.h"
#include "analysis/report/report_page.h"
#include "analysis/report/series_names.h"
#include "analysis/report/svg.h"
#include "harness/host_group.h"
#include "harness/metric_names.h"
#include "harness/stats.h"
#include "records/collective_record.h"
#include "records/gemm_record.h"
#include "records/memory_record.h"
#include "records/offload_record.h"
#include "records/rdma_record.h"

namespace railgauge::report {
namespace {

using json = nlohmann::json;

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

// Runs of more hosts than this are a fleet's: the bandwidth charts draw one line over them all.
constexpr std::size_t kMostHostLines = 12;

std::size_t host_count(const analysis::RunSet &runs) {
  std::set<std::string> hosts;
  for (const auto &run : runs.runs)
    for (const auto &r : run.records)
      hosts.insert(r.host);
  return hosts.size();
}

// A collective of one rank moves nothing over a bus (bus_factor 0): its bus bandwidth is 0 at
// every size, a line along the axis that said nothing of the GPU (compare reads its algbw).
bool one_rank_collective(const Record &r) {
  const auto factor = r.metrics.find("bus_factor");
  return factor != r.metrics.end() && factor->is_number() && factor->get<double>() == 0;
}

// Whether one benchmark and setting (a curve over all runs) is in more runs than a chart has
// looks.
bool repeated_in_many_runs(const analysis::RunSet &runs,
                           const std::function<bool(const Record &)> &wanted) {
  const auto naming = series_params(runs, wanted, true);
  std::map<std::string, std::set<std::string>> runs_of; // curve -> run directories
  for (const auto &run : runs.runs)
    for (const auto &r : run.records)
      if (wanted(r)) {
        auto &of_curve = runs_of[series_name(r, naming, "")];
        if (of_curve.insert(run.dir).second && of_curve.size() > kMostHostLines)
          return true;
      }
  return false;
}

// Where a part's value was measured: its host, and its GPU's index (else its PCI address, else
// the rank, where it names no GPU).
std::string part_name(const Record &r) {
  if (r.params.contains("gpu") && r.params["gpu"].is_number())
    return fmt::format("{} gpu {}", r.host, text(r.params["gpu"]));
  if (r.device.contains("pci"))
    return fmt::format("{} gpu {}", r.host, text(r.device["pci"]));
  if (r.params.contains("gpu"))
    return fmt::format("{} gpu {}", r.host, text(r.params["gpu"]));
  // A group's figure (a multi-node log, "a+b+...") is the group's: its rank is the log's, no
  // node's, and ten hosts joined filled the cell.
  if (hosts_of_group(r.host).size() > 1)
    return group_short_name(r.host);
  return fmt::format("{} rank {}", r.host, r.rank);
}

} // namespace

void gemm_section(Page &page, const analysis::RunSet &runs) {
  // One chart per sweep, grouped as the TP table groups (gemm::record::TpPointView) but with
  // every GPU's point of a cell together: label -> op -> tp -> points.
  using Points = std::vector<gemm::record::TpPointView>;
  std::map<std::string, std::map<std::string, std::map<double, Points>>> groups;
  std::map<std::string, std::vector<const Record *>> group_records; // for the GPU's state
  for (const auto &run : runs.runs)
    for (const auto &r : run.records)
      if (auto v = gemm::record::tp_point_view(r); v && v->status == Status::ok) {
        group_records[v->group_label(false)].push_back(&r);
        groups[v->group_label(false)][v->op][static_cast<double>(v->tp)].push_back(std::move(*v));
      }
  if (groups.empty())
    return;
  page.heading("GEMM efficiency versus tensor parallelism t");
  page.para("One small chart per GEMM of a transformer layer, a line per pass (fwd, dgrad, "
            "wgrad); x: tensor-parallel degree t (the shard each GPU computes shrinks with t), y: "
            "the efficiency (fraction of the dense peak) where every point of the sweep has one, "
            "else TFLOP/s, each chart on its own scale from 0; median over GPUs and ranks.");
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
    // Small multiples: one chart per GEMM of the layer with a line per pass, so that no chart
    // holds more lines than its colours tell apart; one scale for all would hide the attention
    // BMMs among the MLP lines; each chart's title names its GEMM.
    std::map<std::string, std::vector<Series>> by_layer; // "qkv" -> its passes' lines
    std::vector<std::string> layer_order;
    for (auto &s : series) {
      const auto dot = s.name.find('.');
      const std::string layer = s.name.substr(0, dot);
      if (!by_layer.count(layer))
        layer_order.push_back(layer);
      if (dot != std::string::npos)
        s.name = s.name.substr(dot + 1);
      by_layer[layer].push_back(std::move(s));
    }
    page.html += "<p><b>" + xml_escape(group) + "</b></p><div class=\"multiples\">";
    for (const auto &layer : layer_order)
      page.html +=
          "<figure>" +
          line_chart(layer, "tensor-parallel degree t", unit, by_layer.at(layer), true, false) +
          "</figure>";
    page.html += "</div>\n";
    page.md += "**" + group + "** (" + unit + ")\n\n";
    if (const auto state = gpu_state_line(group_records[group]))
      page.para(*state);
    page.markdown_table(rows); // the chart stands for the table on the HTML page
  }
}

void bandwidth_section(Page &page, const analysis::RunSet &runs) {
  bool headed = false;
  for (const auto &fm : kFamilies) {
    const auto wanted = [&](const Record &r) {
      return r.key.starts_with(std::string(fm.family) + ".") && r.status == Status::ok &&
             r.params.contains(metric::kSizeBytes) && r.params[metric::kSizeBytes].is_number() &&
             r.metrics.contains(fm.metric) && r.metrics[fm.metric].is_number() &&
             !r.params.contains("src") && !r.params.contains("src_rank") && !is_fabric_load(r) &&
             !one_rank_collective(r);
    };
    // A fleet's runs (more hosts than a chart has looks) are one line per benchmark and setting
    // over all of them: 4,000 runs once drew 4,000 lines that no one could tell apart. So are a
    // soak's (one node's burn-in every week: the same benchmark in more runs than a chart has
    // looks; 30 runs drew 60 lines at one size). The many runs of one machine that each measure
    // something else (a reference run's suites) keep a line each.
    const std::size_t run_count = run_ids(runs).size();
    const bool fleet = host_count(runs) > kMostHostLines || repeated_in_many_runs(runs, wanted);
    const auto naming = series_params(runs, wanted, fleet);
    // Merged over runs of fewer hosts than runs (a soak), the lowest part is named by its run.
    const bool name_runs = fleet && run_count > host_count(runs);
    // per series and size: each part's value and where it was measured
    std::map<std::string, std::map<double, std::vector<std::pair<double, const Record *>>>> curves;
    std::vector<const Record *> drawn;
    for (const auto &run : runs.runs) {
      const std::string label = fleet ? "" : run_label(runs, run);
      for (const auto &r : run.records)
        if (wanted(r)) {
          drawn.push_back(&r);
          curves[series_name(r, naming, label)][r.params[metric::kSizeBytes].get<double>()]
              .emplace_back(r.metrics[fm.metric].get<double>(), &r);
        }
    }
    if (curves.empty())
      continue;
    if (!headed) {
      page.heading("Bandwidth versus size");
      page.para(fmt::format(
          "x: bytes per buffer or message (log scale), y: bandwidth (GB = 1e9 bytes, Gb = 1e9 "
          "bits); one line per benchmark, setting{}, at the median of its parts (GPUs, ranks, "
          "hosts{}), the shaded band from the lowest part to the highest, so that a slow part "
          "shows as a band below the line; the table names the lowest.",
          fleet ? "" : " and run", fleet ? fmt::format(", over all {} runs", run_count) : ""));
      headed = true;
    }
    std::vector<Series> series;
    std::vector<std::vector<std::string>> rows = {
        {"series", "size_bytes", fm.unit, "parts", "lowest", "lowest at", "highest"}};
    for (const auto &[name, by_size] : curves) {
      Series s{name, {}, {}};
      for (const auto &[size, parts] : by_size) {
        std::vector<double> values;
        for (const auto &part : parts)
          values.push_back(part.first);
        const double m = railgauge::median(values);
        const auto [lo, hi] = lowest_highest(values);
        const auto *low = std::min_element(parts.begin(), parts.end())->second;
        s.points.emplace_back(size, m);
        s.spread.emplace_back(lo, hi);
        rows.push_back({name, tick_label(size, true), fmt::format("{:.4g}", m),
                        std::to_string(values.size()), fmt::format("{:.4g}", lo),
                        part_name(*low) + (name_runs ? " run " + low->run : ""),
                        fmt::format("{:.4g}", hi)});
      }
      series.push_back(std::move(s));
    }
    page.html += "<figure>" +
                 line_chart(std::string(fm.family) + ": " + fm.unit + " versus size", "size",
                            fm.unit, series, true, true) +
                 "</figure>\n";
    page.md += "**" + std::string(fm.family) + "** (" + fm.unit + ")\n\n";
    if (const auto state = gpu_state_line(drawn))
      page.para(*state);
    page.markdown_table(rows);
  }
}

// Host<->GPU copies per GPU at each GPU's largest size: one bar per host and GPU, a GPU under
// kOutlierShare of the best drawn red.
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

} // namespace railgauge::report
