// What a newer run of a host measured again of an older one: run_points.h.
#include "analysis/run_points.h"

#include <algorithm>
#include <array>
#include <cstdlib>
#include <set>

#include <fmt/format.h>

#include "harness/digest.h"
#include "harness/point_results.h"
#include "records/per_gpu_parts.h"

namespace railgauge::analysis {

namespace {

// Axes that say how long or how often a point ran, not what it measured: a burn-in's budget sets
// its phases' duration_s and the pattern test's rounds, so a retest at another budget measures
// the same GPU, dtype and size again.
constexpr std::array kEffortAxes = {"duration_s", "rounds", "repetitions",
                                    "iterations", "warmup", "timeout_s"};

} // namespace

std::optional<std::uint64_t> point_of(const Record &r) {
  if (!r.axes.is_object())
    return std::nullopt;
  auto what = r.axes;
  for (const auto *axis : kEffortAxes)
    what.erase(axis);
  // A pair point's server end (rdma mode=ranks, metrics.role "server") holds none of the pair's
  // figure: it does not measure again what the host measured as the pair's measuring end.
  if (const auto role = r.metrics.find("role"); role != r.metrics.end() && role->is_string())
    what["role"] = *role;
  return Fnv1a64().add(point_identity(r.key, what)).value();
}

std::optional<PointCounts> measured_points(const std::vector<Record> &records) {
  // Each point as planned (effort axes included) -> parts; then the most of any one effort for
  // the point: a retest of 4 GPUs at two durations measured 4 GPUs, not 8.
  std::map<std::pair<std::uint64_t, std::uint64_t>, int> by_effort;
  for (const auto &r : records) {
    // Neither a waived point (it could not run) nor one that broke (an error record: a lost
    // peer or a signal cut it, and check may excuse it) measured anything again.
    if (r.status == Status::waived || r.status == Status::error || records::is_per_gpu_part(r))
      continue;
    const auto point = point_of(r);
    if (!point)
      return std::nullopt; // an older railgauge's record: its params hold derived values
    const auto effort = Fnv1a64().add(r.axes.dump()).value();
    // A point that ran on every GPU at once measured each of them (records/per_gpu_parts.h).
    by_effort[{*point, effort}] +=
        std::max<int>(1, static_cast<int>(records::per_gpu_parts(r).size()));
  }
  PointCounts points;
  for (const auto &[point_effort, count] : by_effort)
    points[point_effort.first] = std::max(points[point_effort.first], count);
  return points;
}

void add_points(PointCounts &into, const PointCounts &from) {
  for (const auto &[point, count] : from)
    into[point] += count;
}

std::string points_text(const PointCounts &points) {
  std::string text;
  for (const auto &[point, count] : points)
    text += fmt::format("{}{:016x}:{}", text.empty() ? "" : " ", point, count);
  return text;
}

std::optional<PointCounts> parse_points_text(std::string_view text) {
  PointCounts points;
  std::size_t at = 0;
  while (at < text.size()) {
    const auto end = std::min(text.find(' ', at), text.size());
    const std::string item(text.substr(at, end - at));
    const auto colon = item.find(':');
    if (colon != 16 || item.size() < 18)
      return std::nullopt;
    char *hex_end = nullptr, *count_end = nullptr;
    const auto point = std::strtoull(item.c_str(), &hex_end, 16);
    const auto count = std::strtol(item.c_str() + 17, &count_end, 10);
    if (hex_end != item.c_str() + 16 || *count_end != '\0' || count <= 0)
      return std::nullopt;
    points[point] = static_cast<int>(count);
    at = end + 1;
  }
  return points;
}

std::vector<SupersedeOutcome> supersede(const std::vector<RunToSupersede> &runs) {
  std::vector<SupersedeOutcome> out(runs.size());
  PointCounts covered;        // the most times any one newer run measured each point
  bool covers_all = false;    // a newer run whose points are not known: the older rule
  bool newer_settled = false; // a newer run that was not stopped
  bool newer_whole = false;   // a newer run that was whole
  long long most_planned = 0; // the most points a newer whole run planned
  int newer_stopped = 0;
  std::set<std::string> whole_plans;
  for (std::size_t i = 0; i < runs.size(); ++i) {
    const auto &run = runs[i];
    auto &outcome = out[i];
    outcome.newer_stopped = newer_stopped;
    for (const auto &[point, count] : run.points) {
      outcome.points_total += count;
      const auto newer = covered.find(point);
      const int again = newer == covered.end() ? 0 : newer->second;
      outcome.points_not_measured_again += std::max(0, count - again);
    }
    // And the points it holds only waived or error records of, which a newer run measured.
    for (const auto &[point, again] : covered) {
      const auto own = run.points.find(point);
      if (own == run.points.end() || again >= own->second)
        outcome.measured_again.insert(point);
    }
    // An unfinished run's points that never ran are not known: a newer whole run of its plan
    // ran them, and so did one that planned as many where the plans are of one suite.
    const bool repeated =
        run.plan.empty() && run.planned <= 0
            ? newer_whole
            : whole_plans.contains(run.plan) || (run.planned > 0 && most_planned >= run.planned);
    outcome.plan_unfinished = !run.whole && !repeated;
    if (i > 0)
      outcome.judged = !covers_all && (run.points_unknown ? !newer_settled
                                                          : outcome.points_not_measured_again > 0 ||
                                                                outcome.plan_unfinished);
    if (run.stopped) {
      ++newer_stopped;
      continue;
    }
    newer_settled = true;
    covers_all = covers_all || run.points_unknown;
    for (const auto &[point, count] : run.points)
      covered[point] = std::max(covered[point], count);
    if (!run.whole)
      continue;
    newer_whole = true;
    most_planned = std::max(most_planned, run.planned);
    if (!run.plan.empty())
      whole_plans.insert(run.plan);
  }
  return out;
}

std::string kept_beside_text(const SupersedeOutcome &outcome) {
  std::string text = "judged beside newer runs of its host and suite";
  if (outcome.points_not_measured_again > 0)
    text += fmt::format(" for the {} of its {} points they did not measure again",
                        outcome.points_not_measured_again, outcome.points_total);
  if (outcome.plan_unfinished)
    text += fmt::format(
        ": it did not finish its plan, and no newer run of that plan did{}",
        outcome.points_not_measured_again > 0
            ? ""
            : fmt::format(" (they measured all {} of its points again)", outcome.points_total));
  if (outcome.newer_stopped > 0)
    text += fmt::format(" ({} newer run{} that a signal stopped measured nothing again)",
                        outcome.newer_stopped, outcome.newer_stopped == 1 ? "" : "s");
  return text;
}

} // namespace railgauge::analysis
