#include "analysis/report/layer_section.h"

#include <algorithm>

#include <fmt/format.h>

#include "analysis/report/svg.h"
#include "records/gemm_layer.h"

namespace railgauge::report {
namespace {

using gemm::record::LayerLine;
using gemm::record::LayerPoint;

std::string cell(const std::optional<double> &v, const char *format) {
  return v ? fmt::format(fmt::runtime(format), *v) : "-";
}

// "gpt3-175b bf16, s 2048, b 1, H200, gpu 0": the legend's name of a line (its key and layout
// are in the section's table).
std::string short_label(const LayerLine &line) {
  const auto &[key, model, dtype, seq, micro_batch, gpu_name, setting] = line.group;
  std::string gpu;
  if (const auto model_name = gpu_name.starts_with("NVIDIA ") ? gpu_name.substr(7) : gpu_name;
      !model_name.empty())
    gpu = ", " + model_name;
  if (setting.starts_with("gpu "))
    gpu += ", " + setting.substr(0, setting.find(','));
  return fmt::format("{} {}, s {}, b {}{}", model, dtype, seq, micro_batch, gpu);
}

} // namespace

void layer_section(Page &page, const analysis::RunSet &runs) {
  std::vector<Record> records;
  for (const auto &run : runs.runs)
    records.insert(records.end(), run.records.begin(), run.records.end());
  auto lines = gemm::record::layer_lines(records);
  std::erase_if(lines, [](const LayerLine &line) {
    return std::none_of(line.points.begin(), line.points.end(),
                        [](const LayerPoint &p) { return p.complete(); });
  });
  if (lines.empty())
    return;
  page.heading("Transformer layer efficiency versus tensor parallelism t");
  page.para("Each TP sweep's whole layer: every GEMM of its forward and backward pass, "
            "FLOP-weighted (the layer's FLOPs over its GEMMs' median times added, what a training "
            "step spends on them), at the t where every GEMM of the layer was measured. Two lines "
            "per sweep, named in the legend: against the dense peak of the GPU's datasheet, and "
            "against the peak at the SM clock the GEMMs ran at (each GEMM's median clock over "
            "its measurement, from its telemetry), so that a GPU held below its clock by its "
            "power limit shows apart from the GEMMs' shape. The table gives the clock and power.");
  std::vector<Series> series;
  std::vector<std::vector<std::string>> rows = {
      {"sweep", "t", "layer TFLOP/s", "dense peak TFLOP/s (at MHz)", "of the dense peak",
       "of the peak at its SM clock", "SM clock MHz (mean)", "SM clock MHz (GEMMs' range)",
       "power W (mean)", "power limit W", "GEMMs measured"}};
  for (const auto &line : lines) {
    Series spec{short_label(line) + ": of the dense peak", {}, {}};
    Series at_clock{short_label(line) + ": of the peak at its SM clock", {}, {}};
    for (const auto &p : line.points) {
      if (p.complete() && p.efficiency)
        spec.points.emplace_back(static_cast<double>(p.tp), *p.efficiency);
      if (p.complete() && p.efficiency_at_clock)
        at_clock.points.emplace_back(static_cast<double>(p.tp), *p.efficiency_at_clock);
      const std::string range =
          p.sm_clock_min_mhz
              ? fmt::format("{:.0f}-{:.0f}", *p.sm_clock_min_mhz, *p.sm_clock_max_mhz)
              : std::string("-");
      // The peak each fraction is of, named: the page once said "of the peak" and no figure.
      const std::string peak =
          p.peak_tflops > 0
              ? fmt::format("{:.1f}{}", p.peak_tflops,
                            p.peak_clock_mhz ? fmt::format(" ({:.0f})", *p.peak_clock_mhz) : "")
              : std::string("unknown");
      const std::optional<double> layer_tflops =
          p.complete() && p.time_s > 0 ? std::optional(p.flops / p.time_s / 1e12) : std::nullopt;
      rows.push_back({line.label, std::to_string(p.tp), cell(layer_tflops, "{:.4g}"), peak,
                      cell(p.efficiency, "{:.3f}"), cell(p.efficiency_at_clock, "{:.3f}"),
                      cell(p.sm_clock_mhz, "{:.0f}"), range, cell(p.power_w, "{:.0f}"),
                      cell(p.power_limit_w, "{:.0f}"),
                      fmt::format("{} of {}", p.gemms, p.gemms_expected)});
    }
    if (!spec.points.empty())
      series.push_back(std::move(spec));
    if (!at_clock.points.empty())
      series.push_back(std::move(at_clock));
  }
  // No peak known for any sweep (a CPU backend, a GPU without a cited peak): no line to draw,
  // and an empty chart once labelled its axis 1e-300 to 1e-34. The table holds the TFLOP/s.
  if (series.empty())
    page.para("No sweep's GPU has a known dense peak, so no efficiency is drawn: the table gives "
              "each layer's TFLOP/s.");
  else
    page.html += "<figure>" +
                 line_chart("transformer layer (forward and backward), FLOP-weighted",
                            "tensor-parallel degree t", "efficiency (fraction of peak)", series,
                            true, false) +
                 "</figure>\n";
  page.table(rows);
}

} // namespace railgauge::report
