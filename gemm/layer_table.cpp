#include "gemm/layer_table.h"

#include <algorithm>
#include <functional>

#include <fmt/format.h>

#include "records/gemm_layer.h"

namespace railgauge::gemm {
namespace {

using record::LayerLine;
using record::LayerPoint;

// One row: its label and each t's cell, "" where the layer is not complete.
std::string row(const std::string &label, std::size_t label_width, const LayerLine &line,
                const std::function<std::string(const LayerPoint &)> &cell) {
  constexpr std::size_t kCellWidth = 9;
  std::string out = fmt::format("{:<{}}", label, label_width);
  for (const auto &p : line.points)
    out += fmt::format(" {:>{}}", p.complete() ? cell(p) : "", kCellWidth);
  return out + "\n";
}

std::string optional_text(const std::optional<double> &v, const char *format) {
  return v ? fmt::format(fmt::runtime(format), *v) : "-";
}

} // namespace

std::string render_layer_table(const std::vector<Record> &records) {
  std::string out;
  for (const auto &line : record::layer_lines(records)) {
    const bool any_complete = std::any_of(line.points.begin(), line.points.end(),
                                          [](const LayerPoint &p) { return p.complete(); });
    if (!any_complete)
      continue;
    double peak_tflops = 0, power_limit_w = 0;
    std::optional<double> peak_clock_mhz;
    for (const auto &p : line.points) {
      peak_tflops = std::max(peak_tflops, p.peak_tflops);
      power_limit_w = std::max(power_limit_w, p.power_limit_w.value_or(0));
      peak_clock_mhz = peak_clock_mhz ? peak_clock_mhz : p.peak_clock_mhz;
    }
    out += fmt::format("\n{}: the layer's GEMMs (forward and backward) together, FLOP-weighted "
                       "(their FLOPs over their summed median times), at TP degree t (column)\n",
                       line.label);
    const std::string peak = peak_tflops > 0
                                 ? fmt::format("% of the dense peak ({:.4g})", peak_tflops)
                                 : std::string("% of the dense peak (unknown)");
    const std::string at_clock =
        peak_clock_mhz
            ? fmt::format("% of the peak at its SM clock (peak at {:.0f} MHz)", *peak_clock_mhz)
            : std::string("% of the peak at its SM clock (no cited clock)");
    const std::string power = power_limit_w > 0
                                  ? fmt::format("power, W, mean (limit {:.0f})", power_limit_w)
                                  : std::string("power, W, mean");
    const std::string clock = "SM clock, MHz, mean over the time";
    const std::string clock_range = "SM clock, MHz, the GEMMs' lowest-highest";
    const std::size_t width =
        std::max({peak.size(), at_clock.size(), power.size(), clock.size(), clock_range.size()});
    out += fmt::format("{:<{}}", "layer", width);
    for (const auto &p : line.points)
      out += fmt::format(" {:>9}", fmt::format("t={}", p.tp));
    out += "\n";
    out += row(peak, width, line, [](const LayerPoint &p) {
      return p.efficiency ? fmt::format("{:.1f}", 100 * *p.efficiency) : "-";
    });
    out += row(at_clock, width, line, [](const LayerPoint &p) {
      return p.efficiency_at_clock ? fmt::format("{:.1f}", 100 * *p.efficiency_at_clock) : "-";
    });
    out += row(clock, width, line,
               [](const LayerPoint &p) { return optional_text(p.sm_clock_mhz, "{:.0f}"); });
    out += row(clock_range, width, line, [](const LayerPoint &p) {
      return p.sm_clock_min_mhz
                 ? fmt::format("{:.0f}-{:.0f}", *p.sm_clock_min_mhz, *p.sm_clock_max_mhz)
                 : std::string("-");
    });
    out += row(power, width, line,
               [](const LayerPoint &p) { return optional_text(p.power_w, "{:.0f}"); });
    // Every t, complete or not: how much of the layer was measured.
    std::string gemms = fmt::format("{:<{}}", "GEMMs measured", width);
    for (const auto &p : line.points)
      gemms += fmt::format(" {:>9}", fmt::format("{}/{}", p.gemms, p.gemms_expected));
    out += gemms + "\n";
  }
  return out;
}

} // namespace railgauge::gemm
