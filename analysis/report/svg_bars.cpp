// The report's bar charts (svg.h): one bar per part with its outliers, and pairs of bars.
#include "analysis/report/svg.h"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

namespace railgauge::report {

namespace {

// The opening of a bar chart: the svg element, its title and the y axis' grid lines and labels
// from `left` to the right edge.
std::string bars_frame(const std::string &title, double width, double height, double left,
                       const Scale &y) {
  std::string s = fmt::format("<svg class=\"bars\" width=\"{0:.0f}\" height=\"{1:.0f}\" "
                              "viewBox=\"0 0 {0:.0f} {1:.0f}\" role=\"img\"><title>{2}</title>"
                              "<text x=\"4\" y=\"16\" font-size=\"13\" font-weight=\"bold\">{2}"
                              "</text>",
                              width, height, xml_escape(title));
  for (double t : y.ticks())
    s += fmt::format("<line x1=\"{0}\" y1=\"{1:.1f}\" x2=\"{2:.1f}\" y2=\"{1:.1f}\" "
                     "stroke=\"#ddd\"/><text x=\"{3}\" y=\"{4:.1f}\" font-size=\"10\" "
                     "text-anchor=\"end\">{5}</text>",
                     left, y.map(t), width - 10, left - 4, y.map(t) + 3,
                     xml_escape(tick_label(t, false)));
  return s;
}

} // namespace

std::string bar_chart(const std::string &title, const std::vector<std::string> &labels,
                      const std::vector<double> &values, const std::vector<bool> &outlier,
                      const std::string &unit, double threshold, const std::string &threshold_text,
                      std::optional<double> best, const std::string &red_means) {
  const double left = 70, top = 34, plot_h = 200;
  // As wide as the longest label under it needs (node names of a fleet), so none overlap.
  std::size_t longest = 0;
  for (const auto &l : labels)
    longest = std::max(longest, l.size());
  const double bar = std::max(
      std::clamp(520.0 / std::max<double>(1, static_cast<double>(labels.size())), 16.0, 48.0),
      caption_width(longest) + 4);
  const double width = std::max({left + bar * static_cast<double>(labels.size()) + 20, 420.0,
                                 title_width(title.size()) + 8,
                                 caption_width(unit.size() + threshold_text.size() + 60) + 8});
  const double height = top + plot_h + 46;
  // The threshold is on the axis too: a GPU alone under its floor (or every ratio under 1) once
  // drew no line at all, the axis ending at the highest bar.
  double hi = std::isfinite(threshold) ? threshold : 0;
  for (double v : values)
    hi = std::max(hi, v);
  const auto y = make_scale(0, hi > 0 ? hi : 1, top + plot_h, top, false);
  std::string s = bars_frame(title, width, height, left, y);
  for (std::size_t i = 0; i < labels.size() && i < values.size(); ++i) {
    const bool out = i < outlier.size() && outlier[i];
    const double x0 = left + bar * static_cast<double>(i);
    s += fmt::format("<rect x=\"{:.1f}\" y=\"{:.1f}\" width=\"{:.1f}\" height=\"{:.1f}\" "
                     "fill=\"{}\"><title>{}: {:.4g} {}</title></rect>",
                     x0 + 2, y.map(values[i]), bar - 4, top + plot_h - y.map(values[i]),
                     out ? "#d62728" : "#1f77b4", xml_escape(labels[i]), values[i],
                     xml_escape(unit));
    if (const double of = best.value_or(hi); out && of > 0)
      s += fmt::format("<text x=\"{:.1f}\" y=\"{:.1f}\" font-size=\"10\" "
                       "text-anchor=\"middle\" fill=\"#d62728\">{:.0f}%</text>",
                       x0 + bar / 2, y.map(values[i]) - 3, 100 * values[i] / of);
    s += fmt::format("<text x=\"{:.1f}\" y=\"{:.1f}\" font-size=\"10\" "
                     "text-anchor=\"middle\">{}</text>",
                     x0 + bar / 2, top + plot_h + 14, xml_escape(labels[i]));
  }
  s += fmt::format("<line x1=\"{0}\" y1=\"{1:.1f}\" x2=\"{2:.1f}\" y2=\"{1:.1f}\" "
                   "stroke=\"#333\" stroke-dasharray=\"4,3\"><title>{3}: {4:.4g} {5}</title>"
                   "</line>",
                   left, y.map(threshold), left + bar * static_cast<double>(labels.size()),
                   xml_escape(threshold_text), threshold, xml_escape(unit));
  s += fmt::format("<text x=\"4\" y=\"{:.1f}\" font-size=\"11\">{}; dashed: {}, {:.4g}; red: "
                   "{}</text>",
                   height - 8, xml_escape(unit), xml_escape(threshold_text), threshold,
                   xml_escape(red_means));
  return s + "</svg>";
}

std::string paired_bar_chart(const std::string &title, const std::vector<std::string> &groups,
                             const std::vector<double> &first, const std::vector<double> &second,
                             const std::string &first_name, const std::string &second_name,
                             const std::string &unit) {
  const double left = 70, top = 34, plot_h = 200, pair = 96;
  const std::size_t n = std::min({groups.size(), first.size(), second.size()});
  const std::string caption = fmt::format("{} (log scale); blue: {}, orange: {}, above it: {} / {}",
                                          unit, first_name, second_name, second_name, first_name);
  const double width = std::max({left + pair * static_cast<double>(n) + 20, 420.0,
                                 title_width(title.size()) + 8, caption_width(caption.size()) + 8});
  const double height = top + plot_h + 46;
  double lo = 0, hi = 0;
  for (std::size_t i = 0; i < n; ++i)
    for (double v : {first[i], second[i]})
      if (v > 0) {
        lo = lo > 0 ? std::min(lo, v) : v;
        hi = std::max(hi, v);
      }
  if (!(lo > 0))
    lo = hi = 1;
  const auto y = make_scale(lo / 2, hi, top + plot_h, top, true);
  std::string s = bars_frame(title, width, height, left, y);
  const double bar = pair / 2 - 6;
  for (std::size_t i = 0; i < n; ++i) {
    const double x0 = left + pair * static_cast<double>(i);
    const double base = top + plot_h;
    for (int k = 0; k < 2; ++k) {
      const double v = k == 0 ? first[i] : second[i];
      if (!(v > 0))
        continue;
      s += fmt::format("<rect x=\"{:.1f}\" y=\"{:.1f}\" width=\"{:.1f}\" height=\"{:.1f}\" "
                       "fill=\"{}\"><title>{} {}: {:.4g} {}</title></rect>",
                       x0 + 4 + k * (bar + 2), y.map(v), bar, base - y.map(v),
                       k == 0 ? "#1f77b4" : "#ff7f0e", xml_escape(groups[i]),
                       xml_escape(k == 0 ? first_name : second_name), v, xml_escape(unit));
    }
    if (first[i] > 0 && second[i] > 0)
      s += fmt::format("<text x=\"{:.1f}\" y=\"{:.1f}\" font-size=\"10\" "
                       "text-anchor=\"middle\">{:.3g}x</text>",
                       x0 + 4 + bar + 2 + bar / 2, y.map(second[i]) - 3, second[i] / first[i]);
    s += fmt::format("<text x=\"{:.1f}\" y=\"{:.1f}\" font-size=\"10\" "
                     "text-anchor=\"middle\">{}</text>",
                     x0 + pair / 2, base + 14, xml_escape(groups[i]));
  }
  s += fmt::format("<text x=\"4\" y=\"{:.1f}\" font-size=\"11\">{}</text>", height - 8,
                   xml_escape(caption));
  return s + "</svg>";
}

} // namespace railgauge::report
