#include "analysis/report/burnin_sections.h"

#include <algorithm>
#include <map>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "analysis/report/report.h"
#include "analysis/report/svg.h"
#include "records/burn_figure.h"
#include "records/burnin_phase_name.h"
#include "records/one_rank_collective.h"
#include "records/per_gpu_parts.h"

namespace railgauge::report {
namespace {

using nlohmann::json;

// The per-GPU figure a phase is judged by, and its unit.
struct Figure {
  std::string metric, unit;
};

std::optional<Figure> figure_of(const json &metrics) {
  if (const auto f = records::burn_figure_of(metrics))
    return Figure{f->metric, f->unit};
  return std::nullopt;
}

std::optional<double> number_at(const json &metrics, const std::string &name) {
  if (!metrics.is_object() || !metrics.contains(name) || !metrics[name].is_number())
    return std::nullopt;
  return metrics[name].get<double>();
}

// One GPU of one phase: its label, figure and series.
struct GpuPhase {
  std::string label;
  double value = 0;
  json series, telemetry_series; // [{"t_s", metric}], [{"t_s", "power_w", "sm_clock_mhz"}]
  // The telemetry's t_s counts from its window's start (during.window_s.from: the settled
  // seconds), the figure's from the phase's: power and clock were drawn 6.6 s early beside the
  // TFLOP/s of the committed H200's bf16 burn.
  double telemetry_from_s = 0;
  std::string not_ok;   // "failed" or "error": the GPU's verdict in this phase, whatever it read
  std::size_t run = 0;  // its run's place in the runs given
  std::string run_name; // "run N" where several runs are given, else ""
};

struct Phase {
  std::string key; // the records' key, which a rule selects by (the phase's name adds a dtype)
  Figure figure;
  nlohmann::json params; // a GPU's params, which a rule's floor is selected by
  std::vector<GpuPhase> gpus;
};

std::string gpu_label(const Record &part, const records::GpuPart &g, bool several_hosts) {
  const std::string gpu = fmt::format("gpu{} {}", g.gpu, g.pci.empty() ? "?" : g.pci);
  return several_hosts ? part.host + " " + gpu : gpu;
}

// Each phase by its column (burnin_column_of(): a GEMM burn's dtype but bf16's, a host copy's
// placement, so the FP64 and TF32 burns and the near and far copies are phases of their own,
// each against its own floor).
std::map<std::string, Phase> phases_of(const analysis::RunSet &runs) {
  std::set<std::string> hosts;
  for (const auto &run : runs.runs)
    for (const auto &r : run.records)
      hosts.insert(r.host);
  std::map<std::string, Phase> phases;
  for (std::size_t run_at = 0; run_at < runs.runs.size(); ++run_at) {
    const auto &run = runs.runs[run_at];
    // Several runs (a healthy burn-in beside a shared one): each GPU's row says which run.
    const std::string of_run = run_label(runs, run);
    for (const auto &r : run.records)
      for (const auto &part : records::per_gpu_parts(r)) {
        const auto figure = figure_of(part.metrics);
        // A GPU that failed the phase (wrong data, an error) is in its rows as a failure, not
        // left out as if it never ran.
        const bool broke = part.status == Status::failed || part.status == Status::error;
        if (!broke && (part.status != Status::ok || !figure))
          continue;
        auto &phase = phases[burnin_column_of(r.key, part.params)];
        phase.key = r.key;
        if (figure)
          phase.figure = *figure;
        phase.params = part.params;
        const auto gpu = records::gpu_part(part);
        std::string label = gpu_label(part, gpu, hosts.size() > 1);
        if (!of_run.empty())
          label += " (" + of_run + ")";
        const auto value = figure ? number_at(part.metrics, figure->metric) : std::nullopt;
        GpuPhase g{label, value.value_or(0), gpu.series.is_null() ? json::array() : gpu.series,
                   json::array()};
        if (broke || !value)
          g.not_ok = broke ? to_string(part.status) : "no figure";
        g.run = run_at;
        g.run_name = of_run;
        const json::json_pointer during("/during/series"), from("/during/window_s/from");
        if (gpu.telemetry.is_object() && gpu.telemetry.contains(during))
          g.telemetry_series = gpu.telemetry.at(during);
        if (gpu.telemetry.is_object() && gpu.telemetry.contains(from) &&
            gpu.telemetry.at(from).is_number())
          g.telemetry_from_s = gpu.telemetry.at(from).get<double>();
        phase.gpus.push_back(std::move(g));
      }
  }
  return phases;
}

// The series of one number against t_s + from_s, points without it left out.
std::vector<std::pair<double, double>> over_time(const json &samples, const std::string &name,
                                                 double from_s) {
  std::vector<std::pair<double, double>> points;
  if (!samples.is_array())
    return points;
  for (const auto &s : samples)
    if (s.is_object() && s.contains("t_s") && s["t_s"].is_number() && s.contains(name) &&
        s[name].is_number())
      points.emplace_back(from_s + s["t_s"].get<double>(), s[name].get<double>());
  return points;
}

void grid(Page &page, const std::map<std::string, Phase> &phases) {
  std::vector<std::string> gpus;
  std::map<std::string, std::map<std::string, std::string>> at; // gpu -> key -> cell
  for (const auto &[key, phase] : phases)
    for (const auto &g : phase.gpus) {
      if (std::find(gpus.begin(), gpus.end(), g.label) == gpus.end())
        gpus.push_back(g.label);
      at[g.label][key] = g.not_ok.empty() ? fmt::format("{:.4g}", g.value) : g.not_ok;
    }
  std::vector<std::vector<std::string>> rows{{"GPU"}};
  for (const auto &[key, phase] : phases)
    rows[0].push_back(fmt::format("{} {}", key, phase.figure.unit));
  for (const auto &gpu : gpus) {
    rows.push_back({gpu});
    for (const auto &[key, phase] : phases)
      rows.back().push_back(at[gpu].contains(key) ? at[gpu][key] : "-");
  }
  page.table(rows);
}

// The most lines a per-second chart draws (line_style's 12 colours, each solid).
constexpr std::size_t kMostTimeLines = 12;

void phase_charts(Page &page, const std::string &key, const Phase &phase,
                  const check::RuleSet *rules) {
  std::vector<std::string> labels, broke;
  std::vector<double> values;
  for (const auto &g : phase.gpus) {
    if (!g.not_ok.empty()) {
      broke.push_back(g.label + ": " + g.not_ok);
      continue;
    }
    labels.push_back(g.label);
    values.push_back(g.value);
  }
  if (!broke.empty())
    page.para(fmt::format("{}: {} GPU{} without a figure to draw: {}.", key, broke.size(),
                          broke.size() == 1 ? "" : "s", fmt::join(broke, ", ")));
  if (values.empty())
    return;
  const double best = *std::max_element(values.begin(), values.end());
  const auto *rule =
      rules ? check::floor_rule(*rules, phase.key, phase.figure.metric, phase.params) : nullptr;
  const std::optional<double> floor = rule ? rule->value : std::nullopt;
  const double line = floor ? *floor : kOutlierShare * best;
  const std::string line_text = floor ? fmt::format("floor {:.4g} ({})", *floor, rules->name)
                                      : fmt::format("{:.0f}% of the best", kOutlierShare * 100);
  std::vector<bool> low;
  for (const double v : values)
    low.push_back(v < line);
  page.html += "<figure>" +
               bar_chart(fmt::format("{}: {} per GPU", key, phase.figure.unit), labels, values, low,
                         phase.figure.unit, line, line_text) +
               "</figure>\n";
  page.md += fmt::format("**{}** per GPU ({}; {})\n\n", key, phase.figure.unit, line_text);
  std::vector<std::vector<std::string>> rows{{"GPU", phase.figure.unit, "below the line"}};
  for (std::size_t i = 0; i < values.size(); ++i)
    rows.push_back({labels[i], fmt::format("{:.4g}", values[i]), low[i] ? "yes" : "no"});
  page.markdown_table(rows);
  // Second by second, each GPU a line: the figure, the power drawn and the SM clock. More lines
  // than a chart has looks (a soak: one node's burn-in every week) are the last run's GPUs:
  // 30 runs once drew 30 lines in each of 16 charts (1.1 MB), none of them told apart.
  std::size_t last_run = 0;
  for (const auto &g : phase.gpus)
    last_run = std::max(last_run, g.run);
  const bool last_only = phase.gpus.size() > kMostTimeLines;
  if (last_only)
    for (const auto &g : phase.gpus)
      if (g.run == last_run) {
        page.para(fmt::format("{} second by second: the GPUs of the last run given ({}), of {} "
                              "GPU runs; the bars above hold every run.",
                              key, g.run_name, phase.gpus.size()));
        break;
      }
  const struct {
    const char *name, *unit;
    bool telemetry;
  } lines[] = {{nullptr, nullptr, false}, {"power_w", "W", true}, {"sm_clock_mhz", "SM MHz", true}};
  for (const auto &l : lines) {
    const std::string name = l.name ? l.name : phase.figure.metric;
    const std::string unit = l.unit ? l.unit : phase.figure.unit;
    std::vector<Series> series;
    for (const auto &g : phase.gpus) {
      if (last_only && g.run != last_run)
        continue;
      auto points = over_time(l.telemetry ? g.telemetry_series : g.series, name,
                              l.telemetry ? g.telemetry_from_s : 0);
      if (points.size() >= 2)
        series.push_back({g.label, std::move(points), {}});
    }
    if (!series.empty())
      page.html += "<figure>" +
                   line_chart(fmt::format("{}: {} per second", key, unit), "seconds into the phase",
                              unit, series, false, false) +
                   "</figure>\n";
  }
}

// The node's collectives beside its burn phases (the all_reduce of 16 GiB): a one-rank one has
// no bus bandwidth and is drawn in no curve, so it was nowhere on the page while compare read it
// 0.598 beside a co-tenant. Its algorithm bandwidth, and in place, no data moved.
void collectives_table(Page &page, const analysis::RunSet &runs) {
  std::vector<std::vector<std::string>> rows{
      {"run", "collective", "size", "in place", "ranks", "figure", "GB/s", "median time (ms)"}};
  for (const auto &run : runs.runs) {
    const auto label = run_label(runs, run);
    for (const auto &r : run.records) {
      if (!r.key.starts_with("collectives.") || r.status != Status::ok)
        continue;
      const bool one_rank = records::one_rank_collective(r.metrics);
      const auto in_place = r.params.value("in_place", std::string());
      const auto rate =
          number_at(r.metrics, one_rank ? "algbw_gbytes_per_s" : "busbw_gbytes_per_s");
      const auto time = r.metrics.contains(metric::kTimeS)
                            ? number_at(r.metrics[metric::kTimeS], "median")
                            : std::nullopt;
      const bool no_data = records::moves_no_data(r.key, r.params);
      rows.push_back(
          {label.empty() ? run.dir : label, r.key,
           r.params.contains(metric::kSizeBytes) && r.params[metric::kSizeBytes].is_number()
               ? tick_label(r.params[metric::kSizeBytes].get<double>(), true)
               : "-",
           in_place, r.params.value("world_size", json()).dump(),
           no_data    ? "no data moved (one rank, in place)"
           : one_rank ? "algbw (one rank: no bus)"
                      : "busbw",
           rate && !no_data ? fmt::format("{:.4g}", *rate) : "-",
           time ? fmt::format("{:.4g}", *time * 1e3) : "-"});
    }
  }
  if (rows.size() == 1)
    return;
  page.para("The node's collectives, beside its phases: a one-rank collective is read by its "
            "algorithm bandwidth (it has no bus), and in place it moves no data.");
  page.table(rows);
}

} // namespace

void burnin_section(Page &page, const analysis::RunSet &runs, const check::RuleSet *rules) {
  const auto phases = phases_of(runs);
  if (phases.empty())
    return;
  page.heading("Burn-in per GPU");
  page.para("Each phase that loaded every GPU at once, per GPU: its figure (the median over the "
            "phase's window, as check judges it), then per phase the GPUs against the profile's "
            "floor (report --rules) or, without one, against the best GPU, and what each GPU did "
            "second by second.");
  grid(page, phases);
  collectives_table(page, runs);
  for (const auto &[key, phase] : phases)
    phase_charts(page, key, phase, rules);
}

} // namespace railgauge::report
