// A comparison as a console table and as markdown, with the preamble both print first.
#include <algorithm>

#include <fmt/format.h>

#include "analysis/compare/compare.h"
#include "analysis/compare/listed_points.h"
#include "analysis/compare/verdicts.h"

namespace railgauge::compare {
namespace {

using json = nlohmann::json;

std::string fmt_num(double v) { return fmt::format("{:.4g}", v); }

std::string params_text(const json &params) {
  std::string s;
  for (const auto &[k, v] : params.items())
    s += fmt::format("{}{}={}", s.empty() ? "" : " ", k,
                     v.is_string() ? v.get<std::string>() : v.dump());
  return s;
}

} // namespace

std::string value_text(const PointComparison &p, std::size_t input) {
  if (p.sides[input])
    return fmt_num(p.sides[input]->value);
  if (input < p.interpolated.size() && p.interpolated[input])
    return "≈" + fmt_num(p.interpolated[input]->value);
  return "-";
}

namespace {

// A relative noise as "±1.3%": under 0.1 % with one significant digit ("±0.03%"), as "±0.0%" read
// as no noise at all beside a ratio printed to three decimals.
std::string noise_percent(double relative) {
  const double percent = relative * 100;
  if (percent == 0)
    return "±0%";
  return percent < 0.1 ? fmt::format("±{:.1g}%", percent) : fmt::format("±{:.1f}%", percent);
}

std::string noise_text(const std::optional<Side> &s) {
  return s && s->noise ? noise_percent(*s->noise) : "-";
}

// The params every point has with the same value: said once above the table, not per row.
json common_params(const Comparison &c) {
  if (c.points.size() < 2)
    return json::object();
  json common = c.points.front().params;
  for (const auto &p : c.points)
    for (auto it = common.begin(); it != common.end();)
      if (!p.params.contains(it.key()) || p.params.at(it.key()) != it.value())
        it = common.erase(it);
      else
        ++it;
  return common;
}

} // namespace

std::vector<std::vector<std::string>>
point_rows(const Comparison &c, const std::vector<const PointComparison *> &points, bool header) {
  std::vector<std::vector<std::string>> out;
  const json common = common_params(c);
  if (header) {
    std::vector<std::string> h = {"key", "params", "metric"};
    for (const auto &l : c.labels)
      h.push_back(l);
    for (std::size_t i = 1; i < c.labels.size(); ++i) {
      h.push_back(c.labels[i] + "/" + c.labels[0]);
      h.push_back("noise");
      h.push_back("verdict");
    }
    out.push_back(h);
  }
  for (const auto *point : points) {
    const auto &p = *point;
    json own = p.params;
    for (const auto &[name, _] : common.items())
      own.erase(name);
    std::vector<std::string> row = {
        p.key, params_text(own) + (p.device.empty() ? "" : " " + p.device),
        p.metric.starts_with("metrics.") ? p.metric.substr(8) : p.metric};
    for (std::size_t i = 0; i < p.sides.size(); ++i)
      row.push_back(value_text(p, i));
    for (std::size_t i = 1; i < p.sides.size(); ++i) {
      row.push_back(p.ratio[i - 1] ? fmt::format("{:.3f}", *p.ratio[i - 1]) : "-");
      const auto &a = compared_side(p, 0, i), &b = compared_side(p, i, 0);
      row.push_back(a && b && a->noise && b->noise ? noise_percent(*a->noise + *b->noise)
                                                   : noise_text(a ? a : b));
      row.push_back(p.verdict[i - 1]);
    }
    out.push_back(row);
  }
  return out;
}

std::vector<std::string> preamble(const Comparison &c) {
  std::vector<std::string> lines;
  for (const auto &problem : c.problems)
    lines.push_back("problem: " + problem);
  if (!c.hint.empty())
    lines.push_back("WARNING: " + c.hint);
  if (!c.context.empty()) {
    std::string line = "Matched without these params, which differ between the inputs:";
    for (const auto &d : c.context) {
      line += " " + d.param + " (";
      for (std::size_t i = 0; i < d.values.size(); ++i)
        line += fmt::format("{}{}: {}", i ? "; " : "", c.labels[i], d.values[i]);
      line += ")";
    }
    lines.push_back(line);
  }
  if (const json common = common_params(c); !common.empty())
    lines.push_back("Every point has: " + params_text(common));
  return lines;
}

namespace {

std::string summary_heading(const Comparison &c) {
  std::string s = "Comparison of";
  for (std::size_t i = 0; i < c.labels.size(); ++i)
    s += fmt::format("{} {} ({} run{})", i ? "," : "", c.labels[i], c.inputs[i].size(),
                     c.inputs[i].size() == 1 ? "" : "s");
  return s;
}

} // namespace

// What the summaries leave out: the node totals whose GPUs are compared one by one.
std::string uncounted_note(const Comparison &c) {
  long totals = 0, parts = 0;
  for (const auto &p : c.points)
    if (!p.counted)
      ++(p.params.contains("part") ? parts : totals);
  std::string out;
  if (totals > 0)
    out += fmt::format(" {} node total{} without a part param {} listed but not counted: {} GPUs "
                       "are, one by one.",
                       totals, totals == 1 ? "" : "s", totals == 1 ? "is" : "are",
                       totals == 1 ? "its" : "their");
  if (parts > 0)
    out += fmt::format(" {} one-GPU part{} (part=gpu) {} listed but not counted: each is its "
                       "node's total, one value without the total's spread, which is counted.",
                       parts, parts == 1 ? "" : "s", parts == 1 ? "is" : "are");
  return out;
}

std::string speedup_text(const Summary &s) {
  return s.points > 0 ? fmt::format("{:.3f}", s.geomean_speedup) : "-";
}

std::string render_table(const Comparison &c, std::size_t most_per_key) {
  std::string out = summary_heading(c) + "\n";
  for (const auto &line : preamble(c))
    out += line + "\n";
  out += fmt::format("Per point: each input's median value, ratio to the first input, noise "
                     "(both inputs' repetition spread, relative, added) and whether the "
                     "difference exceeds it; a single sample has no spread, and its difference "
                     "counts beyond {:g} %\n",
                     100 * c.single_sample_tolerance);
  const auto listed = listed_points(c, most_per_key);
  for (const auto &note : listed.notes)
    out += note + " (--all-points lists every one)\n";
  const auto table = point_rows(c, listed.points, true);
  std::vector<std::size_t> w(table.front().size(), 0);
  for (const auto &r : table)
    for (std::size_t i = 0; i < r.size(); ++i)
      w[i] = std::max(w[i], r[i].size());
  for (const auto &r : table) {
    std::string line;
    for (std::size_t i = 0; i < r.size(); ++i)
      line += fmt::format("{:<{}}", r[i], i + 1 < r.size() ? w[i] + 2 : 0);
    out += line + "\n";
  }
  out += "\nSummary per family: geometric mean of the speedup (> 1: the second input is better; "
         "time and latency inverted)." +
         uncounted_note(c) + "\n";
  for (const auto &s : c.families)
    out += fmt::format(
        "{:<12} {} vs {}: {} over {} point{} ({} better, {} worse, {} "
        "within noise, {} single sample{} within {:g} %){}{}{}{}{}\n",
        s.group, c.labels[s.input], c.labels[0], speedup_text(s), s.points,
        s.points == 1 ? "" : "s", s.better, s.worse - s.failed, s.within_noise, s.single_sample,
        s.single_sample == 1 ? "" : "s", 100 * c.single_sample_tolerance,
        s.read_off_curve
            ? fmt::format("; {} of them read one side off a curve (≈)", s.read_off_curve)
            : "",
        s.failed ? fmt::format("; {} more failed in {} (no ratio)", s.failed, c.labels[s.input])
                 : "",
        s.missing ? fmt::format("; {} only in {}", s.missing, c.labels[0]) : "",
        s.added ? fmt::format("; {} only in {}", s.added, c.labels[s.input]) : "",
        s.unrated
            ? fmt::format("; {} with no ratio (a baseline of zero, or no data moved)", s.unrated)
            : "");
  return out;
}

std::string only_in_compared_heading(const Comparison &c) {
  return c.labels.size() == 2 ? "only in " + c.labels[1] : "only in the compared";
}

std::string render_markdown(const Comparison &c, std::size_t most_per_key) {
  std::string out = "# " + summary_heading(c) + "\n\n";
  for (const auto &line : preamble(c))
    out += line + "\n\n";
  out += "## Summary per family\n\n"
         "Geometric mean of the speedup over the points compared (> 1: better than " +
         c.labels[0] + "; time and latency inverted)." + uncounted_note(c) +
         "\n\n"
         "| family | compared | speedup | points | better | worse | within noise | "
         "single sample within " +
         fmt::format("{:g}", 100 * c.single_sample_tolerance) +
         " % | read off a curve (≈) | failed (no ratio) | only in " + c.labels[0] + " | " +
         only_in_compared_heading(c) +
         " | no ratio (zero baseline, no data moved) |\n"
         "|---|---|---|---|---|---|---|---|---|---|---|---|---|\n";
  for (const auto &s : c.families)
    out += fmt::format("| {} | {} vs {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} |\n",
                       s.group, c.labels[s.input], c.labels[0], speedup_text(s), s.points, s.better,
                       s.worse - s.failed, s.within_noise, s.single_sample, s.read_off_curve,
                       s.failed, s.missing, s.added, s.unrated);
  out += "\n## Per point\n\n";
  const auto listed = listed_points(c, most_per_key);
  for (const auto &note : listed.notes)
    out +=
        note + " (every point is in `railgauge compare --json`, and with --all-points here).\n\n";
  const auto table = point_rows(c, listed.points, true);
  for (std::size_t r = 0; r < table.size(); ++r) {
    std::string line = "|";
    for (const auto &cell : table[r]) {
      std::string esc;
      for (char ch : cell)
        esc += ch == '|' ? std::string("\\|") : std::string(1, ch);
      line += " " + esc + " |";
    }
    out += line + "\n";
    if (r == 0) {
      out += "|";
      for (std::size_t i = 0; i < table[0].size(); ++i)
        out += "---|";
      out += "\n";
    }
  }
  return out;
}

} // namespace railgauge::compare
