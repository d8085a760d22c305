#pragma once
// Small SVG pieces for the report: scales, axes, polylines, heat-map cells and two charts built
// from them. Plain strings of inline SVG (no scripts, no external references), each a pure
// function so the tests can check them piece by piece and the page is deterministic.
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace railgauge::report {

// Maps a data interval onto a pixel interval, linearly or in log10 (log needs positive data).
struct Scale {
  double d0 = 0, d1 = 1; // data
  double r0 = 0, r1 = 1; // pixels
  bool log = false;
  // The one value a log scale over a single value was widened around (its ticks: that value, not
  // the half and the double of it, a "t = 0.5" on a sweep of one t).
  std::optional<double> only_value;

  double map(double v) const;
  // Tick values: powers of 2 or 10 on a log scale (at most ~8), "nice" steps on a linear one.
  std::vector<double> ticks() const;
};

// Padded to nice bounds; a log scale over bytes uses powers of two.
Scale make_scale(double lo, double hi, double r0, double r1, bool log);

// Pixels a caption of `chars` characters takes at 11 px (DejaVu Sans averages about 6.3 px).
double caption_width(std::size_t chars);
// And a title, 13 px bold (about 8.3 px a character).
double title_width(std::size_t chars);

std::string xml_escape(const std::string &text);
// 1024 -> "1 KiB", 1.5e9 -> "1.5 GiB" for byte axes; %.3g otherwise.
std::string tick_label(double v, bool bytes);
// Colour for t in [0, 1] (dark blue -> yellow, viridis-like), "#rrggbb".
std::string heat_color(double t);

std::string axes(const Scale &x, const Scale &y, const std::string &x_label,
                 const std::string &y_label, bool x_bytes);
std::string polyline(const Scale &x, const Scale &y,
                     const std::vector<std::pair<double, double>> &points, const std::string &color,
                     const std::string &title);
// One cell; `bad` draws a red frame and a cross over it.
std::string heat_cell(double x, double y, double w, double h, const std::string &color,
                      const std::string &title, bool bad);

struct Series {
  std::string name;
  std::vector<std::pair<double, double>> points; // sorted by x
  // Per point, the lowest and highest of the parts behind it (GPUs, ranks, hosts): drawn as a
  // shaded band, so that a slow part shows in the plot, not only in the table. Empty: none.
  std::vector<std::pair<double, double>> spread;
};

// The line style of series i: one of 12 colours, then dashed and dotted, so that 36 series have
// 36 looks before one repeats. `dash` is an SVG stroke-dasharray ("" for solid).
struct LineStyle {
  std::string color, dash;
};
LineStyle line_style(std::size_t i);

// A whole chart, width x height px, with a legend under the plot. `log_y` for values that span
// decades (latency: microseconds at p50, milliseconds at the maximum). On a log x axis, points
// at x <= 0 are not drawn; a line under the legend names each series that lost some, and where.
std::string line_chart(const std::string &title, const std::string &x_label,
                       const std::string &y_label, const std::vector<Series> &series, bool log_x,
                       bool x_bytes, bool log_y = false);

// rows x cols matrix (missing cells none), bad cells marked; the caption under it says what rows
// and columns are (`axes`) and what the colours and crosses mean, and the picture is as wide as
// the caption needs.
std::string heat_map(const std::string &title, const std::vector<std::string> &rows,
                     const std::vector<std::string> &cols,
                     const std::vector<std::vector<std::optional<double>>> &values,
                     const std::vector<std::vector<bool>> &bad, const std::string &unit,
                     const std::string &axes = "rows: source, columns: destination",
                     const std::string &bad_means = "bad pair");

// One bar per label (a GPU, a NIC), an outlier drawn red with its share of the best written
// above it; a dashed line at `threshold`, which `threshold_text` names ("85% of the best").
// `best`: what the share above a red bar is of (a fleet's best pair, beyond the bars drawn);
// by default the highest bar. `red_means`: the legend's words for a red bar.
std::string bar_chart(const std::string &title, const std::vector<std::string> &labels,
                      const std::vector<double> &values, const std::vector<bool> &outlier,
                      const std::string &unit, double threshold, const std::string &threshold_text,
                      std::optional<double> best = std::nullopt,
                      const std::string &red_means = "under it, with its share of the best");

// Two bars per group, side by side (idle beside loaded latency at p50, p99, p99.9): the first
// blue, the second orange with its ratio to the first written above it. A log y axis, since a
// tail can be a hundred times the median. Values must be positive.
std::string paired_bar_chart(const std::string &title, const std::vector<std::string> &groups,
                             const std::vector<double> &first, const std::vector<double> &second,
                             const std::string &first_name, const std::string &second_name,
                             const std::string &unit);

} // namespace railgauge::report
