#include "analysis/history/history_report.h"

#include <algorithm>
#include <map>
#include <set>
#include <tuple>
#include <vector>

#include <fmt/format.h>

#include "analysis/history/newest_runs.h"
#include "analysis/report/svg.h"
#include "harness/error.h"

namespace railgauge::history {
namespace {

using json = nlohmann::json;

// A figure series split: "gemm.burn {...} tflops".
struct SeriesParts {
  std::string key, metric;
  json params;
  std::string chart; // key, params without the GPU index, metric: one chart for every GPU
};

SeriesParts split(const std::string &series) {
  SeriesParts s;
  const auto key_end = series.find(' '), metric_start = series.rfind(' ');
  if (key_end == std::string::npos || metric_start <= key_end)
    return {series, "", json::object(), series};
  s.key = series.substr(0, key_end);
  s.metric = series.substr(metric_start + 1);
  s.params = json::parse(series.substr(key_end + 1, metric_start - key_end - 1), nullptr, false);
  json shown = s.params.is_object() ? s.params : json::object();
  shown.erase("gpu");
  shown.erase("part");
  shown.erase("duration_s"); // how long it ran, as the history judges its series
  s.chart = fmt::format("{} {} {}", s.key, shown.dump(), s.metric);
  return s;
}

struct Chart {
  SeriesParts what;
  std::map<std::string, std::vector<std::pair<double, double>>> lines; // slot -> (run, value)
  // slot -> the parts in it, by UUID where known: a GPU known by its UUID, then by its serial
  // too, is one part (history_rules.h).
  std::map<std::string, std::set<std::string>> parts;
  std::vector<double> fleet;
};

// The highest absolute >= bound of any rule on this series (check::floor_rule), if any.
std::optional<std::pair<std::string, double>> floor_of(const check::RuleSet *rules,
                                                       const SeriesParts &s) {
  if (!rules)
    return std::nullopt;
  if (const auto *rule = check::floor_rule(*rules, s.key, s.metric, s.params))
    return std::pair(rule->id, *rule->value);
  return std::nullopt;
}

double percentile(std::vector<double> v, double q) {
  std::sort(v.begin(), v.end());
  return v[static_cast<std::size_t>(q * static_cast<double>(v.size() - 1) + 0.5)];
}

void draw(report::Page &page, const Chart &c, const check::RuleSet *rules, double runs) {
  std::vector<report::Series> series;
  // The lowest beside the first and the latest: a drift and its recovery read "first 717.7,
  // latest 717.7"; the parts the slot held: a line drawn on across a replaced GPU.
  std::vector<std::vector<std::string>> rows = {
      {"slot", "runs", "first", "lowest", "latest", "parts in the slot"}};
  for (const auto &[slot, points] : c.lines) {
    series.push_back({slot, points, {}});
    const auto lowest = std::min_element(points.begin(), points.end(), [](auto a, auto b) {
                          return a.second < b.second;
                        })->second;
    const auto parts = c.parts.find(slot);
    const auto held = parts == c.parts.end() ? 0 : parts->second.size();
    rows.push_back({slot, std::to_string(points.size()),
                    fmt::format("{:.4g}", points.front().second), fmt::format("{:.4g}", lowest),
                    fmt::format("{:.4g}", points.back().second),
                    held > 1 ? fmt::format("{} (replaced)", held) : std::to_string(held)});
  }
  const std::pair<double, double> span{1, std::max(runs, 2.0)};
  if (!c.fleet.empty()) {
    const double lo = percentile(c.fleet, 0.05), hi = percentile(c.fleet, 0.95);
    series.push_back({"fleet 5th-95th percentile",
                      {{span.first, (lo + hi) / 2}, {span.second, (lo + hi) / 2}},
                      {{lo, hi}, {lo, hi}}});
  }
  if (const auto floor = floor_of(rules, c.what))
    series.push_back({"floor (" + floor->first + ")",
                      {{span.first, floor->second}, {span.second, floor->second}},
                      {}});
  page.html += "<figure>" +
               report::line_chart(c.what.chart, "run of this host (oldest first)", c.what.metric,
                                  series, false, false) +
               "</figure>\n";
  page.md += "**" + report::md_escape(c.what.chart) + "**\n\n";
  page.markdown_table(rows);
}

} // namespace

void history_section(report::Page &page, Database &db, const std::string &host,
                     const check::RuleSet *rules) {
  std::map<std::string, Chart> charts;
  // Run id -> 1, 2, ... in the order the history judges them (newest_runs.h: by start, or by
  // when the history stored a run its clock cannot date).
  std::map<std::string, double> run_index;
  {
    const auto dating = newest_runs(db);
    std::vector<std::tuple<double, std::int64_t, std::string>> runs;
    db.for_each("SELECT ru.id, ru.run_id FROM runs ru JOIN hosts h ON h.id = ru.host_id WHERE "
                "h.name = ?",
                {host}, [&](const Row &row) {
                  const auto id = as_int(row[0]).value_or(0);
                  const auto order = dating.order_s.find(id);
                  runs.emplace_back(order == dating.order_s.end() ? 0 : order->second, id,
                                    as_text(row[1]));
                });
    std::sort(runs.begin(), runs.end());
    for (const auto &[order, id, run] : runs)
      run_index.emplace(run, static_cast<double>(run_index.size() + 1));
  }
  db.for_each(
      "SELECT p.slot, r.series, r.figure, ru.run_id, COALESCE(p.uuid, p.identity) FROM records r "
      "JOIN parts p ON p.id = r.part_id JOIN hosts h ON h.id = p.host_id "
      "JOIN runs ru ON ru.id = r.run_id WHERE r.figure IS NOT NULL AND h.name = ?",
      {host}, [&](const Row &row) {
        const auto run = as_text(row[3]);
        const auto x = run_index.emplace(run, run_index.size() + 1).first->second;
        auto s = split(as_text(row[1]));
        auto &chart = charts[s.chart];
        chart.what = std::move(s);
        chart.lines[as_text(row[0])].emplace_back(x, as_double(row[2]).value_or(0));
        chart.parts[as_text(row[0])].insert(as_text(row[4]));
      });
  for (auto &[name, chart] : charts)
    for (auto &[slot, points] : chart.lines)
      std::stable_sort(points.begin(), points.end());
  if (charts.empty())
    throw InputError(fmt::format("the history holds no figure of host '{}'", host), db.name(),
                     "give --host a host the database holds (railgauge db ingest its runs)");
  std::set<std::string> keys;
  for (const auto &[name, c] : charts)
    keys.insert(c.what.key);
  db.for_each("SELECT r.series, r.figure FROM records r WHERE r.figure IS NOT NULL", {},
              [&](const Row &row) {
                const auto series = as_text(row[0]);
                if (!keys.contains(series.substr(0, series.find(' '))))
                  return;
                if (auto it = charts.find(split(series).chart); it != charts.end())
                  it->second.fleet.push_back(as_double(row[1]).value_or(0));
              });
  page.heading(fmt::format("History of {}", host));
  page.para(fmt::format("{} run(s) of {} in {}; a line per slot, the fleet's band (5th to 95th "
                        "percentile of every part's values of the series) and the floor of the "
                        "rules given.",
                        run_index.size(), host, db.name()));
  std::size_t drawn = 0;
  for (const auto &[name, c] : charts)
    if (drawn++ < kMaxHistoryCharts)
      draw(page, c, rules, static_cast<double>(run_index.size()));
  if (charts.size() > kMaxHistoryCharts)
    page.para(fmt::format("{} more series not drawn.", charts.size() - kMaxHistoryCharts));
}

} // namespace railgauge::history
