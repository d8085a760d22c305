#include "analysis/history/history_rules.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <string_view>

#include <fmt/format.h>

#include "analysis/check/run_completeness.h"
#include "analysis/history/newest_runs.h"
#include "analysis/history/trend.h"
#include "harness/stats.h"

namespace railgauge::history {
namespace {

using check::Finding;
using check::Level;
using check::PartKey;
using check::PartKind;

struct Point {
  double value = 0;
  std::string identity, uuid, run;
  std::int64_t row = 0;   // its run's row in the runs table
  double order_s = 0;     // its run's order (order_of)
  std::string raw_series; // the stored series where judged_series took a duration out, else ""
  long long rank = 0;     // the rank that measured it
};

// One part: the same identity, or the same UUID. A GPU first seen by its UUID is keyed by its
// serial once the inventory reads serials (NVML's board serial): the same GPU, not a new one.
bool same_part(const Point &a, const Point &b) {
  return a.identity == b.identity || (!a.uuid.empty() && a.uuid == b.uuid);
}

// How series_per_rank names a rank's series: "<series>\x1frank 3".
constexpr char kRankMark = '\x1f';

// "metrics.tflops of gemm.burn {...}" from the series "gemm.burn {...} tflops" (", rank 3" after
// it for one rank's series).
std::string series_text(const std::string &named) {
  const auto mark = named.find(kRankMark);
  const auto series = named.substr(0, mark);
  const auto rank = mark == std::string::npos ? "" : ", " + named.substr(mark + 1);
  const auto key_end = series.find(' ');
  const auto metric_start = series.rfind(' ');
  if (key_end == std::string::npos || metric_start == key_end)
    return series + rank;
  return fmt::format("metrics.{} of {} {}{}", series.substr(metric_start + 1),
                     series.substr(0, key_end),
                     series.substr(key_end + 1, metric_start - key_end - 1), rank);
}

Finding finding(const char *rule, Level level, std::string what, double value, std::string bound,
                std::string detail, std::string run) {
  Finding f;
  f.rule_id = rule;
  f.category = "history";
  f.level = level;
  f.what = std::move(what);
  f.value = value;
  f.bound = std::move(bound);
  f.detail = std::move(detail);
  f.run = std::move(run);
  return f;
}

std::string percent(double fraction) { return fmt::format("{:.1f} %", 100 * fraction); }

class SeriesJudge {
public:
  SeriesJudge(const HistoryOptions &o, HistoryJudgement &out) : o_(o), out_(out) {}

  void judge(const PartKey &part, const std::string &series, const std::vector<Point> &points) {
    ++out_.series;
    std::size_t start = points.size() - 1; // the history of the part now in the slot
    while (start > 0 && same_part(points[start - 1], points.back()))
      --start;
    if (start > 0)
      replaced(part, points[start - 1], points[start], start + 1 == points.size());
    std::vector<double> values;
    for (std::size_t i = start; i < points.size(); ++i)
      values.push_back(points[i].value);
    drift(part, series, values, points.back().run);
    step(part, series, values, points.back().run);
  }

private:
  // Said once a part, at the run that found the new part: the history before it is another
  // part's, and the slot's new history starts from here.
  void replaced(const PartKey &part, const Point &before, const Point &now, bool latest) {
    auto &tally = out_.tallies[{part, kReplacedRule}];
    if (!replaced_parts_.insert(part).second)
      return;
    auto &at = out_.replaced_at_s[part.host];
    at = std::max(at, now.order_s);
    ++tally.checked;
    tally.passed += !latest;
    if (!latest)
      return;
    out_.findings.emplace_back(
        part, finding(kReplacedRule, Level::info,
                      fmt::format("part in slot {}", part.id.empty() ? part.host : part.id), 0,
                      fmt::format("the part of its history ({})", before.identity),
                      fmt::format("replaced: {} (last seen in run {}) is now {}; its history "
                                  "restarts at this run",
                                  before.identity, before.run, now.identity),
                      now.run));
  }

  void drift(const PartKey &part, const std::string &series, const std::vector<double> &all,
             const std::string &run) {
    if (static_cast<int>(all.size()) < o_.drift_min_runs)
      return;
    const auto first = all.size() - std::min<std::size_t>(all.size(), o_.window_runs);
    const std::vector<double> window(all.begin() + static_cast<std::ptrdiff_t>(first), all.end());
    const auto t = robust_trend(window);
    const double fall = -t.change_fraction;
    const double bound =
        std::max(o_.drift_min_fraction, o_.drift_noise_multiple * t.noise_fraction);
    auto &tally = out_.tallies[{part, kDriftRule}];
    ++tally.checked;
    if (fall < bound || t.falling_pairs < o_.drift_falling_share) {
      ++tally.passed;
      return;
    }
    out_.findings.emplace_back(
        part, finding(kDriftRule, Level::warn, series_text(series), window.back(),
                      fmt::format("a fall < {} over {} runs", percent(bound), t.n),
                      fmt::format("fell {} over the last {} runs ({} a run, Theil-Sen), noise "
                                  "{}, {} of pairs of runs falling",
                                  percent(fall), t.n, percent(-t.slope_per_run / t.level),
                                  percent(t.noise_fraction), percent(t.falling_pairs)),
                      run));
  }

  void step(const PartKey &part, const std::string &series, const std::vector<double> &all,
            const std::string &run) {
    if (all.size() < 2)
      return;
    const double previous = all[all.size() - 2], latest = all.back();
    const auto first = all.size() - 1 - std::min<std::size_t>(all.size() - 1, o_.window_runs);
    const std::vector<double> before(all.begin() + static_cast<std::ptrdiff_t>(first),
                                     all.end() - 1);
    const double level = median(before);
    const double noise = before.size() >= 3 && level != 0 ? robust_sigma(before) / level : 0;
    const double bound = std::max(o_.step_min_fraction, o_.step_noise_multiple * noise);
    double moved = previous != 0 ? (latest - previous) / std::fabs(previous) : 0;
    // A drop that stays: the retest at the same lower level moved 0 % from the run before it,
    // and a GPU that lost 7 % for good passed from its second run on. A fall is also read
    // against the level of the window before it (its median) until that level has moved.
    const double below_level = level != 0 ? (latest - level) / std::fabs(level) : 0;
    const bool from_level = below_level < moved && below_level <= -bound && moved > -bound;
    if (from_level)
      moved = below_level;
    auto &tally = out_.tallies[{part, kStepRule}];
    ++tally.checked;
    if (std::fabs(moved) < bound) {
      ++tally.passed;
      return;
    }
    const std::string what =
        from_level
            ? fmt::format("fell {} below the median of its {} runs before ({:.5g} -> {:.5g})",
                          percent(-moved), before.size(), level, latest)
            : fmt::format("{} {} since the previous run ({:.5g} -> {:.5g})",
                          moved < 0 ? "fell" : "rose", percent(std::fabs(moved)), previous, latest);
    out_.findings.emplace_back(
        part, finding(kStepRule, moved < 0 ? Level::warn : Level::info, series_text(series), latest,
                      fmt::format("a move < {} from the previous run{}", percent(bound),
                                  from_level ? " and from the median before it" : ""),
                      what, run));
  }

  const HistoryOptions &o_;
  HistoryJudgement &out_;
  std::set<PartKey> replaced_parts_;
};

PartKind kind_of(const std::string &kind) {
  return kind == "gpu" ? PartKind::gpu : kind == "nic" ? PartKind::nic : PartKind::node;
}

// " WHERE h.name IN (?, ...)" for a few hosts; a large list is filtered as rows come.
std::string host_filter(const std::vector<std::string> &hosts, Row &params, const char *join) {
  if (hosts.empty() || hosts.size() > 500)
    return "";
  std::string sql = fmt::format(" {} h.name IN (", join);
  for (std::size_t i = 0; i < hosts.size(); ++i) {
    sql += i ? ", ?" : "?";
    params.emplace_back(hosts[i]);
  }
  return sql + ")";
}

// A stored series ("gemm.burn {params} tflops") without the params that say how long its point
// ran, not what it measured: a burn-in planned for another budget (duration_s 48 on 2026-11-27,
// 33 on 2026-11-28 in the committed H200 burn-ins) continues its GPU's series instead of starting
// another, in which no drop was a step until it held enough runs.
std::string judged_series(std::string series) {
  constexpr std::string_view kDuration = "\"duration_s\":";
  const auto at = series.find(kDuration);
  if (at == std::string::npos)
    return series;
  auto end = series.find_first_of(",}", at + kDuration.size());
  if (end == std::string::npos)
    return series;
  auto from = at;
  if (series[end] == ',')
    ++end; // the comma after it
  else if (from > 0 && series[from - 1] == ',')
    --from; // the last param: the comma before it
  return series.erase(from, end - from);
}

// A series several ranks of a run measured on one part (the senders of an incast through one
// NIC), as a series per rank (series_text: "..., rank 3"). Each rank once read as a run of its own,
// stepping from rank to rank within one run; and a median of the ranks hid a drop on one of them.
std::map<std::string, std::vector<Point>> series_per_rank(const std::string &series,
                                                          std::vector<Point> points) {
  // Only where one run measured it from several ranks: a node's rank changes with the job that
  // ran it, and its runs at rank 0 and rank 1 are one series.
  std::map<std::pair<std::string, std::string>, std::set<long long>> ranks_of_run;
  for (const auto &p : points)
    ranks_of_run[{p.run, p.raw_series}].insert(p.rank);
  if (std::all_of(ranks_of_run.begin(), ranks_of_run.end(),
                  [](const auto &run) { return run.second.size() == 1; }))
    return {{series, std::move(points)}};
  std::map<long long, std::vector<Point>> by_rank;
  for (auto &p : points)
    by_rank[p.rank].push_back(std::move(p));
  std::map<std::string, std::vector<Point>> out;
  for (auto &[rank, of_rank] : by_rank) {
    const auto suffix = fmt::format("{}rank {}", kRankMark, rank);
    for (auto &p : of_rank)
      if (!p.raw_series.empty())
        p.raw_series += suffix;
    out[series + suffix] = std::move(of_rank);
  }
  return out;
}

// Whether no two points (sorted by run) are of one run.
bool one_point_a_run(const std::vector<Point> &points) {
  return std::adjacent_find(points.begin(), points.end(), [](const Point &a, const Point &b) {
           return a.row == b.row;
         }) == points.end();
}

// The order of a run's row: when it started, or was stored where its clock cannot date it.
double order_of(const NewestRuns &dating, std::int64_t row) {
  const auto it = dating.order_s.find(row);
  return it == dating.order_s.end() ? 0 : it->second;
}

void judge_figures(Database &db, const std::vector<std::string> &hosts, const HistoryOptions &o,
                   const NewestRuns &dating, HistoryJudgement &out) {
  const std::set<std::string> wanted(hosts.begin(), hosts.end());
  Row params;
  const auto sql =
      "SELECT h.name, p.kind, p.slot, p.identity, r.series, r.figure, ru.run_id, p.uuid, ru.id, "
      "r.rank "
      "FROM records r JOIN parts p ON p.id = r.part_id JOIN hosts h ON h.id = p.host_id "
      "JOIN runs ru ON ru.id = r.run_id WHERE r.figure IS NOT NULL" +
      host_filter(hosts, params, "AND") +
      " ORDER BY h.name, p.kind, p.slot, r.series, ru.start_utc, ru.id";
  SeriesJudge judge(o, out);
  PartKey part;
  std::map<std::string, std::vector<Point>> series_of_part; // one part's, by judged_series
  // A series is judged where its last point is of a newest run of its host: one that ended (its
  // params changed, its host renamed or retired) warned for its last drift at every check after,
  // beside a newest run that was clean.
  const auto current = [&](const std::vector<Point> &points) {
    return !points.empty() &&
           std::binary_search(dating.rows.begin(), dating.rows.end(), points.back().row);
  };
  const auto flush = [&] {
    std::map<std::string, std::vector<Point>> by_series;
    for (auto &[series, of_ranks] : series_of_part)
      by_series.merge(series_per_rank(series, std::move(of_ranks)));
    for (auto &[series, points] : by_series) {
      std::stable_sort(points.begin(), points.end(), [&](const Point &a, const Point &b) {
        return std::pair{a.order_s, a.row} < std::pair{b.order_s, b.row};
      });
      if (!current(points))
        continue;
      if (!one_point_a_run(points)) {
        // A run that measured the point at several durations: each duration is a series of its
        // own, or the step would compare the run with itself.
        std::map<std::string, std::vector<Point>> by_duration;
        for (auto &point : points)
          by_duration[point.raw_series.empty() ? series : point.raw_series].push_back(
              std::move(point));
        for (const auto &[raw, of_raw] : by_duration)
          judge.judge(part, raw, of_raw);
        continue;
      }
      judge.judge(part, series, points);
    }
    series_of_part.clear();
  };
  // Rows come ordered by series: the series of the row before is found again without a lookup.
  std::string last_series;
  std::vector<Point> *last_points = nullptr;
  db.for_each(sql, params, [&](const Row &row) {
    const auto host = as_text(row[0]);
    if (!wanted.empty() && !wanted.contains(host))
      return;
    ++out.values;
    PartKey key{host, kind_of(as_text(row[1])), as_text(row[2])};
    if (!(key == part)) {
      flush();
      part = std::move(key);
      last_points = nullptr;
    }
    auto raw = as_text(row[4]);
    auto series = judged_series(raw);
    if (series == raw)
      raw.clear();
    if (!last_points || series != last_series) {
      last_points = &series_of_part[series];
      last_series = std::move(series);
    }
    const auto run_row = as_int(row[8]).value_or(0);
    last_points->push_back({as_double(row[5]).value_or(0), as_text(row[3]), as_text(row[7]),
                            as_text(row[6]), run_row, order_of(dating, run_row), std::move(raw),
                            as_int(row[9]).value_or(0)});
  });
  flush();
}

// The hosts whose last runs hold runs that no check judged (no verdict stored, no record
// failed): history-repeat-offender cannot count their failures.
class Unjudged {
public:
  void saw(const std::string &host, const std::string &run) {
    if (hosts_.insert(host).second && first_host_.empty()) {
      first_host_ = host;
      first_run_ = run;
    }
  }
  std::string line(int window_runs) const {
    if (hosts_.empty())
      return "";
    return fmt::format(
        "{} host{} hold{} runs among {} last {} that no check judged (stored by db ingest, never "
        "checked; the first: {}, run {}): history-repeat-offender counts a run's failure from the "
        "verdict a check stored of it, so theirs are not counted; `check --rules PROFILE "
        "--history DB RUN...` stores each run given with its verdict",
        hosts_.size(), hosts_.size() == 1 ? "" : "s", hosts_.size() == 1 ? "s" : "",
        hosts_.size() == 1 ? "its" : "their", window_runs, first_host_, first_run_);
  }

private:
  std::set<std::string> hosts_;
  std::string first_host_, first_run_;
};

// Each run of `hosts` (all when empty) with whether it failed: a record failed or errored, it is
// incomplete (check fails it on run-complete: short of its planned points, a record line lost),
// or a `check --history` of it said fail. One that a signal from outside stopped (a job's time
// limit: its incomplete begins "not judged: ") did not fail for that, nor for the point the signal
// cut (ingest counts it in no failed_records).
std::string offender_runs_sql(const std::vector<std::string> &hosts, Row &params) {
  return "SELECT h.name, ru.suite, ru.run_id, ru.failed_records + (SELECT COUNT(*) FROM verdicts "
         "v WHERE v.run_id = ru.id AND v.rule = 'verdict' AND v.level = 'fail') + (CASE WHEN "
         "ru.incomplete IS NULL OR ru.incomplete = '' OR ru.incomplete LIKE '" +
         std::string(check::kNotJudged) +
         "%' THEN 0 ELSE 1 END), ru.id, (SELECT COUNT(*) FROM verdicts v WHERE v.run_id = ru.id "
         "AND v.rule = 'verdict') FROM runs ru JOIN hosts h ON h.id = ru.host_id" +
         host_filter(hosts, params, "WHERE") + " ORDER BY h.name, ru.suite, ru.start_utc, ru.id";
}

void judge_offenders(Database &db, const std::vector<std::string> &hosts, const HistoryOptions &o,
                     const NewestRuns &dating, const std::map<std::string, double> &replaced_at_s,
                     HistoryJudgement &out) {
  const std::set<std::string> wanted(hosts.begin(), hosts.end());
  Row params;
  const auto sql = offender_runs_sql(hosts, params);
  std::string host, suite;
  struct RunFailed {
    std::string id;
    bool failed = false;
    double order_s = 0;  // its earliest row's
    bool judged = false; // a check stored a verdict of it, or a record of it failed
  };
  std::vector<RunFailed> runs;
  Unjudged unjudged;
  const auto flush = [&] {
    if (runs.empty())
      return;
    std::stable_sort(runs.begin(), runs.end(),
                     [](const RunFailed &a, const RunFailed &b) { return a.order_s < b.order_s; });
    const auto first = runs.size() - std::min<std::size_t>(runs.size(), o.offender_runs);
    std::vector<std::string> failed, not_judged;
    for (auto i = first; i < runs.size(); ++i) {
      if (runs[i].failed)
        failed.push_back(runs[i].id);
      else if (!runs[i].judged)
        not_judged.push_back(runs[i].id);
    }
    // Said only where their failures could make the host a repeat offender.
    if (!not_judged.empty() && static_cast<int>(failed.size()) < o.offender_failures &&
        static_cast<int>(failed.size() + not_judged.size()) >= o.offender_failures)
      unjudged.saw(host, not_judged.front());
    const PartKey node{host, PartKind::node, ""};
    auto &tally = out.tallies[{node, kOffenderRule}];
    ++tally.checked;
    const int n = static_cast<int>(runs.size() - first);
    if (static_cast<int>(failed.size()) < o.offender_failures) {
      ++tally.passed;
    } else {
      // The host's failures count whichever part failed (a lemon host): a part replaced since
      // some of them is said, for the new part may not be at fault.
      const auto replaced = replaced_at_s.find(host);
      const bool before_replacement =
          replaced != replaced_at_s.end() &&
          std::any_of(runs.begin() + static_cast<std::ptrdiff_t>(first), runs.end(),
                      [&](const RunFailed &r) { return r.failed && r.order_s < replaced->second; });
      out.findings.emplace_back(
          node,
          finding(kOffenderRule, Level::warn, fmt::format("failed runs of suite '{}'", suite),
                  static_cast<double>(failed.size()),
                  fmt::format("< {} of its last {} runs", o.offender_failures, o.offender_runs),
                  fmt::format("a repeat offender: failed {} of its last {} runs ({}){}",
                              failed.size(), n, fmt::join(failed, ", "),
                              before_replacement ? "; a part was replaced since some of them "
                                                   "(history-replaced): they may be the old "
                                                   "part's"
                                                 : ""),
                  runs.back().id));
    }
    runs.clear();
  };
  db.for_each(sql, params, [&](const Row &row) {
    if (!wanted.empty() && !wanted.contains(as_text(row[0])))
      return;
    if (as_text(row[0]) != host || as_text(row[1]) != suite) {
      flush();
      host = as_text(row[0]);
      suite = as_text(row[1]);
    }
    // The ranks of one run on this host (a run of several processes per node) are one run.
    const bool failed = as_int(row[3]).value_or(0) > 0;
    const bool judged = failed || as_int(row[5]).value_or(0) > 0;
    const auto id = as_text(row[2]);
    const auto order = order_of(dating, as_int(row[4]).value_or(0));
    const auto same =
        std::find_if(runs.begin(), runs.end(), [&](const auto &run) { return run.id == id; });
    if (same != runs.end()) {
      same->failed = same->failed || failed;
      same->judged = same->judged || judged;
      same->order_s = std::min(same->order_s, order);
    } else {
      runs.push_back({id, failed, order, judged});
    }
  });
  flush();
  if (const auto line = unjudged.line(o.offender_runs); !line.empty())
    out.problems.push_back(line);
}

} // namespace

HistoryJudgement judge_history(Database &db, const std::vector<std::string> &hosts,
                               const HistoryOptions &options, Offenders offenders) {
  HistoryJudgement out;
  out.dating = newest_runs(db);
  const auto &dating = out.dating;
  const std::set<std::string> wanted(hosts.begin(), hosts.end());
  for (const auto &[host, what] : dating.dating_problems)
    if (wanted.empty() || wanted.contains(host))
      out.problems.push_back(fmt::format("{}: {}", host, what));
  for (const auto &[host, what] : dating.kept_beside)
    if (wanted.empty() || wanted.contains(host))
      out.problems.push_back(fmt::format("{}: {}", host, what));
  for (auto &line : hosts_not_run_lately(db, wanted, dating))
    out.problems.push_back(std::move(line));
  judge_figures(db, hosts, options, dating, out);
  if (offenders == Offenders::judged)
    judge_offenders(db, hosts, options, dating, out.replaced_at_s, out);
  return out;
}

HistoryJudgement judge_repeat_offenders(Database &db, const std::vector<std::string> &hosts,
                                        const HistoryOptions &options, const NewestRuns &dating,
                                        const std::map<std::string, double> &replaced_at_s) {
  HistoryJudgement out;
  judge_offenders(db, hosts, options, dating, replaced_at_s, out);
  return out;
}

} // namespace railgauge::history
