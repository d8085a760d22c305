#include "analysis/report/svg.h"

#include <algorithm>
#include <cmath>
#include <set>

#include <fmt/format.h>

namespace railgauge::report {
namespace {

// Tableau's 10 and two more of the same weight: distinct on white and to most colour-blind eyes
// in pairs that differ in lightness too.
constexpr const char *kPalette[] = {"#1f77b4", "#d62728", "#2ca02c", "#ff7f0e",
                                    "#9467bd", "#8c564b", "#e377c2", "#7f7f7f",
                                    "#bcbd22", "#17becf", "#393b79", "#637939"};
constexpr const char *kDashes[] = {"", "6,3", "2,2"};
constexpr std::size_t kColours = std::size(kPalette);

} // namespace

double caption_width(std::size_t chars) { return 6.6 * static_cast<double>(chars); }
double title_width(std::size_t chars) { return 8.6 * static_cast<double>(chars); }

LineStyle line_style(std::size_t i) {
  return {kPalette[i % kColours], kDashes[(i / kColours) % std::size(kDashes)]};
}

double Scale::map(double v) const {
  double t;
  if (log) {
    const double l0 = std::log10(d0), l1 = std::log10(d1);
    t = l1 == l0 ? 0.5 : (std::log10(std::max(v, d0 * 1e-12)) - l0) / (l1 - l0);
  } else {
    t = d1 == d0 ? 0.5 : (v - d0) / (d1 - d0);
  }
  return r0 + t * (r1 - r0);
}

std::vector<double> Scale::ticks() const {
  std::vector<double> out;
  if (only_value)
    return {*only_value};
  if (log) {
    // Powers of two when the span is small enough to label them, else powers of 1024 or 10.
    const double decades = std::log10(d1 / d0);
    const double base =
        decades <= 3 ? 2 : (std::fabs(std::log2(d0) - std::round(std::log2(d0))) < 1e-9 ? 4 : 10);
    double step = base;
    while (std::log(d1 / d0) / std::log(step) > 8)
      step *= base;
    for (double v = std::pow(base, std::ceil(std::log(d0) / std::log(base) - 1e-9));
         v <= d1 * (1 + 1e-9); v *= step)
      out.push_back(v);
    return out;
  }
  const double span = d1 - d0;
  if (span <= 0)
    return {d0};
  const double raw = span / 5;
  const double mag = std::pow(10, std::floor(std::log10(raw)));
  double step = mag;
  for (double m : {1.0, 2.0, 5.0, 10.0})
    if (raw <= m * mag) {
      step = m * mag;
      break;
    }
  for (double v = std::ceil(d0 / step - 1e-9) * step; v <= d1 + step * 1e-9; v += step)
    out.push_back(std::fabs(v) < step * 1e-9 ? 0 : v);
  return out;
}

Scale make_scale(double lo, double hi, double r0, double r1, bool log) {
  Scale s;
  s.r0 = r0;
  s.r1 = r1;
  s.log = log;
  if (log) {
    lo = std::max(lo, 1e-300);
    hi = std::max(hi, lo);
    if (hi == lo) {
      s.only_value = lo;
      lo /= 2;
      hi *= 2;
    }
    s.d0 = lo;
    s.d1 = hi;
    return s;
  }
  if (hi == lo) {
    hi = lo == 0 ? 1 : lo * 1.1;
    lo = lo == 0 ? 0 : lo * 0.9;
  }
  // Start bandwidth and efficiency axes at zero: bars of throughput read wrong otherwise.
  if (lo > 0 && lo < hi * 0.6)
    lo = 0;
  s.d0 = lo;
  s.d1 = hi + (hi - lo) * 0.05;
  return s;
}

std::string xml_escape(const std::string &text) {
  std::string out;
  for (char c : text) {
    switch (c) {
    case '&':
      out += "&amp;";
      break;
    case '<':
      out += "&lt;";
      break;
    case '>':
      out += "&gt;";
      break;
    case '"':
      out += "&quot;";
      break;
    default:
      out += c;
    }
  }
  return out;
}

std::string tick_label(double v, bool bytes) {
  if (bytes) {
    const char *units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
    int u = 0;
    while (v >= 1024 && u < 4) {
      v /= 1024;
      ++u;
    }
    return fmt::format("{:g} {}", std::round(v * 100) / 100, units[u]);
  }
  if (std::fabs(v) >= 1000 && std::fabs(v) < 1e7)
    return fmt::format("{:.0f}", v);
  return fmt::format("{:.3g}", v);
}

std::string heat_color(double t) {
  t = std::clamp(t, 0.0, 1.0);
  // Viridis at 5 stops, linearly interpolated.
  static const int stops[5][3] = {
      {68, 1, 84}, {59, 82, 139}, {33, 145, 140}, {94, 201, 98}, {253, 231, 37}};
  const double pos = t * 4;
  const int i = std::min(3, static_cast<int>(pos));
  const double f = pos - i;
  int rgb[3];
  for (int k = 0; k < 3; ++k)
    rgb[k] = static_cast<int>(std::lround(stops[i][k] + f * (stops[i + 1][k] - stops[i][k])));
  return fmt::format("#{:02x}{:02x}{:02x}", rgb[0], rgb[1], rgb[2]);
}

std::string axes(const Scale &x, const Scale &y, const std::string &x_label,
                 const std::string &y_label, bool x_bytes) {
  std::string s = "<g class=\"axes\" font-size=\"11\" fill=\"#333\">";
  const double y0 = y.r0, x0 = x.r0;
  s +=
      fmt::format("<line x1=\"{:.1f}\" y1=\"{:.1f}\" x2=\"{:.1f}\" y2=\"{:.1f}\" stroke=\"#333\"/>",
                  x.r0, y0, x.r1, y0);
  s +=
      fmt::format("<line x1=\"{:.1f}\" y1=\"{:.1f}\" x2=\"{:.1f}\" y2=\"{:.1f}\" stroke=\"#333\"/>",
                  x0, y.r0, x0, y.r1);
  for (double t : x.ticks()) {
    const double px = x.map(t);
    s += fmt::format("<line x1=\"{0:.1f}\" y1=\"{1:.1f}\" x2=\"{0:.1f}\" y2=\"{2:.1f}\" "
                     "stroke=\"#333\"/><text x=\"{0:.1f}\" y=\"{3:.1f}\" "
                     "text-anchor=\"middle\">{4}</text>",
                     px, y0, y0 + 4, y0 + 16, xml_escape(tick_label(t, x_bytes)));
  }
  for (double t : y.ticks()) {
    const double py = y.map(t);
    s += fmt::format("<line x1=\"{0:.1f}\" y1=\"{1:.1f}\" x2=\"{2:.1f}\" y2=\"{1:.1f}\" "
                     "stroke=\"#ddd\"/><text x=\"{3:.1f}\" y=\"{4:.1f}\" "
                     "text-anchor=\"end\">{5}</text>",
                     x0, py, x.r1, x0 - 4, py + 4, xml_escape(tick_label(t, false)));
  }
  s += fmt::format("<text x=\"{:.1f}\" y=\"{:.1f}\" text-anchor=\"middle\">{}</text>",
                   (x.r0 + x.r1) / 2, y0 + 32, xml_escape(x_label));
  s += fmt::format("<text transform=\"translate({:.1f},{:.1f}) rotate(-90)\" "
                   "text-anchor=\"middle\">{}</text>",
                   x0 - 48, (y.r0 + y.r1) / 2, xml_escape(y_label));
  return s + "</g>";
}

namespace {
// The band between each point's lowest and highest part, as one closed shape.
std::string spread_band(const Scale &x, const Scale &y, const Series &s, const std::string &color) {
  if (s.spread.size() != s.points.size() || s.points.size() < 1)
    return "";
  std::string pts;
  for (std::size_t i = 0; i < s.points.size(); ++i)
    pts += fmt::format("{}{:.1f},{:.1f}", pts.empty() ? "" : " ", x.map(s.points[i].first),
                       y.map(s.spread[i].second));
  for (std::size_t i = s.points.size(); i-- > 0;)
    pts += fmt::format(" {:.1f},{:.1f}", x.map(s.points[i].first), y.map(s.spread[i].first));
  return fmt::format("<polygon points=\"{}\" fill=\"{}\" fill-opacity=\"0.15\" "
                     "stroke=\"none\"><title>{}: lowest to highest part</title></polygon>",
                     pts, color, xml_escape(s.name));
}
} // namespace

std::string polyline(const Scale &x, const Scale &y,
                     const std::vector<std::pair<double, double>> &points, const std::string &color,
                     const std::string &title) {
  std::string pts, dots;
  for (const auto &[px, py] : points) {
    const double sx = x.map(px), sy = y.map(py);
    pts += fmt::format("{}{:.1f},{:.1f}", pts.empty() ? "" : " ", sx, sy);
    dots += fmt::format("<circle cx=\"{:.1f}\" cy=\"{:.1f}\" r=\"2.5\" fill=\"{}\"><title>{}: "
                        "{} -> {:.4g}</title></circle>",
                        sx, sy, color, xml_escape(title), px, py);
  }
  return fmt::format("<g><title>{}</title><polyline fill=\"none\" stroke=\"{}\" "
                     "stroke-width=\"1.8\" points=\"{}\"/>{}</g>",
                     xml_escape(title), color, pts, dots);
}

std::string heat_cell(double x, double y, double w, double h, const std::string &color,
                      const std::string &title, bool bad) {
  std::string s = fmt::format("<rect x=\"{:.1f}\" y=\"{:.1f}\" width=\"{:.1f}\" height=\"{:.1f}\" "
                              "fill=\"{}\"{}><title>{}</title></rect>",
                              x, y, w, h, color, bad ? " stroke=\"#e00\" stroke-width=\"2.5\"" : "",
                              xml_escape(title));
  if (bad)
    s += fmt::format("<path d=\"M{:.1f},{:.1f}L{:.1f},{:.1f}M{:.1f},{:.1f}L{:.1f},{:.1f}\" "
                     "stroke=\"#e00\" stroke-width=\"2\"/>",
                     x + 3, y + 3, x + w - 3, y + h - 3, x + w - 3, y + 3, x + 3, y + h - 3);
  return s;
}

namespace {

// A log axis has no place for 0 or less (a size-0 row of nccl-tests' all_gather on more ranks
// than elements): such points leave the series, and one line per series says how many, at
// which x, so the chart neither squashes every curve against one edge nor drops them unsaid.
std::vector<std::string> leave_out_unplaceable(std::vector<Series> &series, bool log_x) {
  std::vector<std::string> said;
  if (!log_x)
    return said;
  for (auto &s : series) {
    Series kept{s.name, {}, {}};
    std::set<double> xs;
    std::size_t n = 0;
    for (std::size_t i = 0; i < s.points.size(); ++i) {
      if (s.points[i].first > 0) {
        kept.points.push_back(s.points[i]);
        if (i < s.spread.size())
          kept.spread.push_back(s.spread[i]);
        continue;
      }
      ++n;
      xs.insert(s.points[i].first);
    }
    if (n == 0)
      continue;
    std::string at;
    for (double x : xs)
      at += fmt::format("{}{:g}", at.empty() ? "" : ", ", x);
    said.push_back(fmt::format("not drawn ({} on a log axis): {}: {} point{}", "x <= 0",
                               s.name.empty() ? "(unnamed)" : s.name, n, n == 1 ? "" : "s") +
                   " at x = " + at);
    s = std::move(kept);
  }
  return said;
}

} // namespace

std::string line_chart(const std::string &title, const std::string &x_label,
                       const std::string &y_label, const std::vector<Series> &drawn, bool log_x,
                       bool x_bytes, bool log_y) {
  std::vector<Series> series = drawn;
  const auto left_out = leave_out_unplaceable(series, log_x);
  const double width = 640, plot_h = 260, left = 70, top = 30;
  double xmin = INFINITY, xmax = -INFINITY, ymin = INFINITY, ymax = -INFINITY;
  for (const auto &s : series) {
    for (const auto &[x, y] : s.points) {
      xmin = std::min(xmin, x);
      xmax = std::max(xmax, x);
      ymin = std::min(ymin, y);
      ymax = std::max(ymax, y);
    }
    for (const auto &[lo, hi] : s.spread) {
      ymin = std::min(ymin, lo);
      ymax = std::max(ymax, hi);
    }
  }
  if (!std::isfinite(xmin)) {
    xmin = ymin = 0;
    xmax = ymax = 1;
  }
  const auto x = make_scale(xmin, xmax, left, width - 20, log_x);
  const auto y = log_y && ymin > 0
                     ? make_scale(ymin, ymax, top + plot_h, top, true)
                     : make_scale(std::min(ymin, 0.0), ymax, top + plot_h, top, false);
  const double legend_h = 16.0 * static_cast<double>(series.size() + left_out.size());
  const double height = top + plot_h + 44 + legend_h;
  std::size_t longest = 0;
  for (const auto &s : series)
    longest = std::max(longest, s.name.size());
  for (const auto &line : left_out)
    longest = std::max(longest, line.size());
  const double svg_width = std::max(width, left + 18 + caption_width(longest) + 8);
  std::string s = fmt::format("<svg class=\"chart\" width=\"{0:.0f}\" height=\"{1}\" "
                              "viewBox=\"0 0 {0:.0f} {1}\" role=\"img\"><title>{2}</title><text "
                              "x=\"{3}\" y=\"18\" font-size=\"13\" font-weight=\"bold\">{2}</text>",
                              svg_width, height, xml_escape(title), left);
  s += axes(x, y, x_label, y_label, x_bytes);
  for (std::size_t i = 0; i < series.size(); ++i)
    s += spread_band(x, y, series[i], line_style(i).color);
  for (std::size_t i = 0; i < series.size(); ++i) {
    const LineStyle style = line_style(i);
    std::string line = polyline(x, y, series[i].points, style.color, series[i].name);
    if (!style.dash.empty())
      line.replace(line.find("stroke-width="), 0,
                   fmt::format("stroke-dasharray=\"{}\" ", style.dash));
    s += line;
    const double ly = top + plot_h + 50 + 16.0 * static_cast<double>(i);
    s += fmt::format("<line x1=\"{}\" y1=\"{:.1f}\" x2=\"{}\" y2=\"{:.1f}\" stroke=\"{}\" "
                     "stroke-width=\"2.5\"{}/><text x=\"{}\" y=\"{:.1f}\" font-size=\"11\">{}"
                     "</text>",
                     left, ly - 3, left + 14, ly - 3, style.color,
                     style.dash.empty() ? "" : fmt::format(" stroke-dasharray=\"{}\"", style.dash),
                     left + 18, ly, xml_escape(series[i].name));
  }
  for (std::size_t i = 0; i < left_out.size(); ++i)
    s += fmt::format("<text class=\"left-out\" x=\"{}\" y=\"{:.1f}\" font-size=\"11\">{}</text>",
                     left + 18, top + plot_h + 50 + 16.0 * static_cast<double>(series.size() + i),
                     xml_escape(left_out[i]));
  return s + "</svg>";
}

std::string heat_map(const std::string &title, const std::vector<std::string> &rows,
                     const std::vector<std::string> &cols,
                     const std::vector<std::vector<std::optional<double>>> &values,
                     const std::vector<std::vector<bool>> &bad, const std::string &unit,
                     const std::string &axes_caption, const std::string &bad_means) {
  const double cell =
      std::clamp(480.0 / std::max<double>(1, static_cast<double>(cols.size())), 14.0, 40.0);
  const double left = 90, top = 60;
  double lo = INFINITY, hi = -INFINITY;
  for (const auto &r : values)
    for (const auto &v : r)
      if (v) {
        lo = std::min(lo, *v);
        hi = std::max(hi, *v);
      }
  // The colour scale starts at half the best value at most, so that a matrix whose cells differ
  // by 0.1% looks uniform instead of spanning dark to yellow.
  if (std::isfinite(hi))
    lo = std::min(lo, hi / 2);
  const std::string caption =
      fmt::format("{}; colour: {} (dark {:.4g}, yellow {:.4g}); red cross: {}", axes_caption, unit,
                  std::isfinite(lo) ? lo : 0, std::isfinite(hi) ? hi : 0, bad_means);
  // Wide enough for the caption line under the cells, and for the title.
  const double width = std::max({left + cell * static_cast<double>(cols.size()) + 20, 600.0,
                                 caption_width(caption.size()) + 8, title_width(title.size()) + 8});
  const double height = top + cell * static_cast<double>(rows.size()) + 40;
  std::string s = fmt::format("<svg class=\"heatmap\" width=\"{0:.0f}\" height=\"{1:.0f}\" "
                              "viewBox=\"0 0 {0:.0f} {1:.0f}\" role=\"img\"><title>{2}</title>"
                              "<text x=\"4\" y=\"16\" font-size=\"13\" font-weight=\"bold\">{2}"
                              "</text>",
                              width, height, xml_escape(title));
  for (std::size_t c = 0; c < cols.size(); ++c)
    s += fmt::format("<text x=\"{:.1f}\" y=\"{:.1f}\" font-size=\"10\" text-anchor=\"middle\">{}"
                     "</text>",
                     left + cell * (static_cast<double>(c) + 0.5), top - 6, xml_escape(cols[c]));
  for (std::size_t r = 0; r < rows.size(); ++r) {
    s += fmt::format("<text x=\"{:.1f}\" y=\"{:.1f}\" font-size=\"10\" text-anchor=\"end\">{}"
                     "</text>",
                     left - 4, top + cell * (static_cast<double>(r) + 0.6), xml_escape(rows[r]));
    for (std::size_t c = 0; c < cols.size(); ++c) {
      const auto &v = values[r][c];
      const double t = v && hi > lo ? (*v - lo) / (hi - lo) : 1.0;
      const bool is_bad = r < bad.size() && c < bad[r].size() && bad[r][c];
      s += heat_cell(left + cell * static_cast<double>(c), top + cell * static_cast<double>(r),
                     cell - 1, cell - 1, v ? heat_color(t) : "#eeeeee",
                     fmt::format("{} -> {}: {}", rows[r], cols[c],
                                 v ? fmt::format("{:.4g} {}", *v, unit) : "not measured"),
                     is_bad);
    }
  }
  s += fmt::format("<text x=\"4\" y=\"{:.1f}\" font-size=\"11\">{}</text>", height - 10,
                   xml_escape(caption));
  return s + "</svg>";
}

} // namespace railgauge::report
