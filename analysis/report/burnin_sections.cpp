#include "analysis/report/burnin_sections.h"

#include <algorithm>
#include <map>

#include <fmt/format.h>

#include "analysis/report/report.h"
#include "analysis/report/svg.h"
#include "records/burn_figure.h"
#include "records/burnin_phase_name.h"
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

// One GPU of one phase: its label, figure and series.
struct GpuPhase {
  std::string label;
  double value = 0;
  json series, telemetry_series; // [{"t_s", metric}], [{"t_s", "power_w", "sm_clock_mhz"}]
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
  for (const auto &run : runs.runs) {
    // Several runs (a healthy burn-in beside a shared one): each GPU's row says which run.
    const std::string of_run = run_label(runs, run);
    for (const auto &r : run.records)
      for (const auto &part : records::per_gpu_parts(r)) {
        const auto figure = figure_of(part.metrics);
        if (part.status != Status::ok || !figure)
          continue;
        auto &phase = phases[burnin_column_of(r.key, part.params)];
        phase.key = r.key;
        phase.figure = *figure;
        phase.params = part.params;
        const auto gpu = records::gpu_part(part);
        std::string label = gpu_label(part, gpu, hosts.size() > 1);
        if (!of_run.empty())
          label += " (" + of_run + ")";
        GpuPhase g{label, part.metrics[figure->metric].get<double>(),
                   gpu.series.is_null() ? json::array() : gpu.series, json::array()};
        const json::json_pointer during("/during/series");
        if (gpu.telemetry.is_object() && gpu.telemetry.contains(during))
          g.telemetry_series = gpu.telemetry.at(during);
        phase.gpus.push_back(std::move(g));
      }
  }
  return phases;
}

// The series of one number against t_s, points without it left out.
std::vector<std::pair<double, double>> over_time(const json &samples, const std::string &name) {
  std::vector<std::pair<double, double>> points;
  if (!samples.is_array())
    return points;
  for (const auto &s : samples)
    if (s.is_object() && s.contains("t_s") && s["t_s"].is_number() && s.contains(name) &&
        s[name].is_number())
      points.emplace_back(s["t_s"].get<double>(), s[name].get<double>());
  return points;
}

void grid(Page &page, const std::map<std::string, Phase> &phases) {
  std::vector<std::string> gpus;
  std::map<std::string, std::map<std::string, double>> at; // gpu -> key -> figure
  for (const auto &[key, phase] : phases)
    for (const auto &g : phase.gpus) {
      if (std::find(gpus.begin(), gpus.end(), g.label) == gpus.end())
        gpus.push_back(g.label);
      at[g.label][key] = g.value;
    }
  std::vector<std::vector<std::string>> rows{{"GPU"}};
  for (const auto &[key, phase] : phases)
    rows[0].push_back(fmt::format("{} {}", key, phase.figure.unit));
  for (const auto &gpu : gpus) {
    rows.push_back({gpu});
    for (const auto &[key, phase] : phases)
      rows.back().push_back(at[gpu].contains(key) ? fmt::format("{:.4g}", at[gpu][key]) : "-");
  }
  page.table(rows);
}

void phase_charts(Page &page, const std::string &key, const Phase &phase,
                  const check::RuleSet *rules) {
  std::vector<std::string> labels;
  std::vector<double> values;
  for (const auto &g : phase.gpus) {
    labels.push_back(g.label);
    values.push_back(g.value);
  }
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
  // Second by second, each GPU a line: the figure, the power drawn and the SM clock.
  const struct {
    const char *name, *unit;
    bool telemetry;
  } lines[] = {{nullptr, nullptr, false}, {"power_w", "W", true}, {"sm_clock_mhz", "SM MHz", true}};
  for (const auto &l : lines) {
    const std::string name = l.name ? l.name : phase.figure.metric;
    const std::string unit = l.unit ? l.unit : phase.figure.unit;
    std::vector<Series> series;
    for (const auto &g : phase.gpus)
      if (auto points = over_time(l.telemetry ? g.telemetry_series : g.series, name);
          points.size() >= 2)
        series.push_back({g.label, std::move(points), {}});
    if (!series.empty())
      page.html += "<figure>" +
                   line_chart(fmt::format("{}: {} per second", key, unit), "seconds into the phase",
                              unit, series, false, false) +
                   "</figure>\n";
  }
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
  for (const auto &[key, phase] : phases)
    phase_charts(page, key, phase, rules);
}

} // namespace railgauge::report
