// What the fleet history stores of a run directory: run_facts.h.
#include "analysis/history/run_facts.h"

#include <fmt/format.h>

#include "analysis/check/host_names.h"
#include "analysis/check/run_completeness.h"
#include "analysis/history/history_builtins.h"
#include "analysis/history/storable_text.h"
#include "analysis/run_points.h"
#include "harness/digest.h"
#include "harness/inventory/inventory_fields.h"
#include "harness/run_fields.h"

namespace railgauge::history {
namespace {

using json = nlohmann::json;

std::string text(const json &j, const char *field) {
  if (!j.is_object())
    return "";
  const auto it = j.find(field);
  return it != j.end() && it->is_string() ? it->get<std::string>() : "";
}

} // namespace

RunFacts::RunFacts(const analysis::LoadedRun &run, const std::vector<std::string> &unread) {
  const auto &m = run.manifest;
  const Record *first = run.records.empty() ? nullptr : &run.records.front();
  run_id = analysis::run_id_of(run);
  host = text(m, run_field::kHost);
  if (host.empty())
    host = first ? first->host : "unknown-host";
  if (m.is_object() && m.value(run_field::kRank, json()).is_number_integer())
    rank = m[run_field::kRank].get<std::int64_t>();
  else if (first)
    rank = first->rank;
  suite = m.is_object() ? text(m.value(run_field::kSuite, json()), run_field::kSuiteName) : "";
  // A bare records.jsonl (no run.json) cannot be dated, so `check` never supersedes it:
  // "records" keeps it out of the newest-run choice, as an import's tool name does.
  source = !m.is_object()                   ? kBareRecordsSource
           : suite.rfind("import.", 0) == 0 ? suite.substr(7)
                                            : "railgauge";
  // A run without a start in run.json (a bare records.jsonl, or a run.json written by hand) is
  // dated by its first point's time, as `check --latest-per-host` dates it (run_set.h).
  start = text(m, run_field::kStartUtc);
  if (start.empty() && first)
    start = first->time_utc;
  end = text(m, run_field::kEndUtc);
  status = text(m, run_field::kStatus);
  const auto integer = [](const json &j) {
    return j.is_number_integer() ? Value(j.get<std::int64_t>()) : Value(nullptr);
  };
  if (m.is_object()) {
    points_planned = integer(m.value(run_field::kPointsPlanned, json()));
    if (m.contains(run_field::kCounts) && m[run_field::kCounts].is_object())
      counts = m[run_field::kCounts].dump();
    const auto world = m.value(run_field::kWorld, json());
    if (world.is_object()) {
      world_size = integer(world.value(run_field::kWorldSize, json()));
      world_rank = integer(world.value(run_field::kWorldRank, json()));
    }
    if (const auto it = m.find(inventory_field::kInventory); it != m.end() && it->is_object())
      inventory = it->dump(-1, ' ', false, json::error_handler_t::replace);
  }
  Fnv1a64 digest;
  for (const auto &r : run.records)
    for (const auto &piece : {r.key, r.params.dump(), r.device.dump(), r.metrics.dump(),
                              std::string(to_string(r.status)), r.reason.value_or(""), r.time_utc})
      digest.add(piece).add("\x1f");
  records_digest = fmt::format("{:016x}", digest.value());
  if (m.is_object() && m.contains(run_field::kPlan) && m[run_field::kPlan].is_object() &&
      m[run_field::kPlan].value("digest", json()).is_string())
    plan_digest = m[run_field::kPlan]["digest"].get<std::string>();
  // "" where the points are not known (an older railgauge's records): any newer run supersedes
  // the run, as before the history stored points.
  if (const auto measured = analysis::measured_points(run.records)) {
    points = analysis::points_text(*measured);
    points_digest = fmt::format("{:016x}", Fnv1a64().add(points).value());
  }
  // A file of the run that could not be read whole is evidence lost, as over its directory.
  auto why = check::incompleteness(run);
  why.insert(why.end(), unread.begin(), unread.end());
  for (const auto &w : why)
    incomplete += (incomplete.empty() ? "" : "; ") + w;
  // A run a rank lost on another node stopped, or a signal from outside (a job's time
  // limit), is no fault of its node: stored as run-complete words it (check's
  // stopped_from_outside), and judged so (history_builtins.h, lost_ranks.h).
  lost = check::lost_ranks_of(run.manifest);
  lost_ranks = stored_lost_ranks(run);
  auto excuse = incomplete.empty() ? std::nullopt : check::lost_ranks_elsewhere(run, host);
  excused_by_loss = excuse.has_value();
  if (!excuse && unread.empty())
    excuse = check::stopped_by_signal(run);
  if (excuse)
    incomplete = fmt::format("{}{}; {}", check::kNotJudged, *excuse, incomplete);
}

void RunFacts::check_storable(const std::string &dir) const {
  if (const auto why = check::host_name_problem(host))
    throw RunNotStorable(fmt::format("the run cannot be stored: {}", *why), dir,
                         "fix the host name in the run's run.json and records.jsonl, then "
                         "ingest it again; the other runs are stored");
  history::check_storable(dir, "run id", run_id, kMaxIndexedTextBytes);
  history::check_storable(dir, "directory name", dir);
  for (const auto *field : {&suite, &start, &end, &status, &incomplete, &lost_ranks})
    history::check_storable(dir, "run.json text", *field);
  // A lost rank's host is blamed by name, as the run's own is (check --history refuses a
  // stored name it cannot write).
  for (const auto &[rank, lost_host] : lost)
    if (const auto why = lost_host.empty() ? std::nullopt : check::host_name_problem(lost_host))
      throw RunNotStorable(
          fmt::format("the run cannot be stored: its lost rank {}'s {}", rank, *why), dir,
          "fix the host name in the run's run.json lost_ranks, then ingest it "
          "again; the other runs are stored");
  history::check_storable(dir, "run.json inventory", inventory);
}

} // namespace railgauge::history
