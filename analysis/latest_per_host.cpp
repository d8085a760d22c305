// Which of a host's runs is its newest (check --latest-per-host): run_set.h.
#include <algorithm>
#include <cstdlib>
#include <ctime>
#include <map>
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include <fmt/format.h>

#include "analysis/run_machines.h"
#include "analysis/run_points.h"
#include "analysis/run_set.h"
#include "harness/run_fields.h"

namespace railgauge::analysis {

namespace {

// The suite a run ran ("import.nccl-tests" for an import), and when it started.
std::string suite_of(const LoadedRun &run) {
  const auto &m = run.manifest;
  if (!m.is_object() || !m.contains(run_field::kSuite) || !m[run_field::kSuite].is_object())
    return "";
  const auto &suite = m[run_field::kSuite];
  const auto it = suite.find(run_field::kSuiteName);
  return it != suite.end() && it->is_string() ? it->get<std::string>() : "";
}

// The ranks of the run's world ("" before manifests named it): a run of 8 ranks on one node and
// one of 16 across two measure different things, so neither supersedes the other.
std::string world_of(const LoadedRun &run) {
  const auto &m = run.manifest;
  if (m.is_object() && m.contains(run_field::kWorld) && m[run_field::kWorld].is_object() &&
      m[run_field::kWorld].contains(run_field::kWorldSize) &&
      m[run_field::kWorld][run_field::kWorldSize].is_number_integer())
    return std::to_string(m[run_field::kWorld][run_field::kWorldSize].get<long long>());
  return "";
}

using SupersedingKey = std::tuple<std::string, std::string, std::string, std::string, std::string>;

// How many ranks of each run ran on each host: one run id per host and run.
std::map<std::pair<std::string, std::string>, int> ranks_per_host(const RunSet &set) {
  std::map<std::pair<std::string, std::string>, int> ranks;
  for (const auto &run : set.runs)
    if (run.manifest.is_object())
      ++ranks[{host_of(run), run_id_of(run)}];
  return ranks;
}

// What a newer run replaces: the same host, suite, world size and ranks on the host. A burn-in
// on eight 8-GPU nodes has a node step of one rank per node (world 8, 1 on the host) and a
// per-node NCCL step (world 8, all 8 on the host): neither supersedes the other.
// And the machine (run_machines.h): another machine under the same host name is not a retest.
SupersedingKey superseding_key(const LoadedRun &run,
                               const std::map<std::pair<std::string, std::string>, int> &ranks,
                               const std::map<std::string, std::string> &machines) {
  const auto here = ranks.find({host_of(run), run_id_of(run)});
  return {host_of(run), suite_of(run), world_of(run),
          here == ranks.end() ? "" : std::to_string(here->second), machines.at(run.dir)};
}

} // namespace

bool plausible_start(const std::string &start_utc) {
  const auto digits = [&](std::size_t from, std::size_t n) {
    return start_utc.size() >= from + n &&
           std::all_of(start_utc.begin() + static_cast<std::ptrdiff_t>(from),
                       start_utc.begin() + static_cast<std::ptrdiff_t>(from + n),
                       [](char c) { return c >= '0' && c <= '9'; });
  };
  // YYYY-MM-DDTHH:MM:SS, then an optional fraction, then Z and nothing else.
  if (start_utc.size() < 20 || !digits(0, 4) || start_utc[4] != '-' || !digits(5, 2) ||
      start_utc[7] != '-' || !digits(8, 2) || start_utc[10] != 'T' || !digits(11, 2) ||
      start_utc[13] != ':' || !digits(14, 2) || start_utc[16] != ':' || !digits(17, 2))
    return false;
  std::size_t end = 19;
  if (start_utc[end] == '.') {
    ++end;
    while (end < start_utc.size() && digits(end, 1))
      ++end;
  }
  if (end + 1 != start_utc.size() || start_utc[end] != 'Z' || start_utc < "2000")
    return false;
  // A day's slack for clocks that disagree: a later start is a clock set ahead.
  const std::time_t tomorrow = std::time(nullptr) + 24 * 3600;
  std::tm tm{};
  gmtime_r(&tomorrow, &tm);
  char limit[32];
  std::strftime(limit, sizeof limit, "%Y-%m-%dT%H:%M:%S", &tm);
  return start_utc.compare(0, 19, limit) <= 0;
}

std::optional<double> start_seconds(const std::string &start_utc) {
  if (!plausible_start(start_utc))
    return std::nullopt;
  std::tm tm{};
  tm.tm_year = std::stoi(start_utc.substr(0, 4)) - 1900;
  tm.tm_mon = std::stoi(start_utc.substr(5, 2)) - 1;
  tm.tm_mday = std::stoi(start_utc.substr(8, 2));
  tm.tm_hour = std::stoi(start_utc.substr(11, 2));
  tm.tm_min = std::stoi(start_utc.substr(14, 2));
  // The seconds and their fraction, up to the Z: "32.123".
  const double seconds = std::strtod(start_utc.substr(17, start_utc.size() - 18).c_str(), nullptr);
  return static_cast<double>(timegm(&tm)) + seconds;
}

namespace {

// A host's run under one superseding key, as its ranks there date and describe it.
struct HostRun {
  double start_s = 0;
  std::string start; // the earliest rank's start as run.json says it
  RunToSupersede facts;
};

// run.json's plan.digest ("" when none).
std::string plan_of(const LoadedRun &run) {
  const auto &m = run.manifest;
  if (!m.is_object() || !m.contains(run_field::kPlan) || !m[run_field::kPlan].is_object())
    return "";
  const auto digest = m[run_field::kPlan].find("digest");
  return digest != m[run_field::kPlan].end() && digest->is_string() ? digest->get<std::string>()
                                                                    : "";
}

// Moves the run's results of `points` to its superseded ones: a newer run measured them again.
void set_aside_measured_again(LoadedRun &run, const std::set<std::uint64_t> &points) {
  run.all_results = run.records;
  std::vector<Record> judged;
  for (auto &r : run.records) {
    const auto point = point_of(r);
    (point && points.contains(*point) ? run.superseded : judged).push_back(std::move(r));
  }
  run.records = std::move(judged);
  if (run.superseded.empty())
    run.all_results.clear();
}

} // namespace

std::vector<std::string> keep_latest_per_host(RunSet &set, const WholeRun &whole,
                                              std::vector<std::string> *kept_beside) {
  // A run id names one run of every rank, and each rank dates its own directory to the
  // millisecond: a run is ordered by the start of its earliest rank (then the id), and every
  // rank of it is kept or dropped together. Runs without a manifest cannot be dated, and imports
  // are never superseded (each holds the file it was imported from: two logs of one tool are two
  // measurements, and the same file twice is already one run): all kept.
  const auto ranks = ranks_per_host(set);
  const auto machines = machine_of_runs(set);
  const auto dated = [](const LoadedRun &run) {
    if (!run.manifest.is_object() || run.manifest.contains(run_field::kImported))
      return false;
    const auto start = manifest_text(run, run_field::kStartUtc);
    return start.empty() || plausible_start(start);
  };
  std::map<SupersedingKey, std::map<std::string, HostRun>> runs; // key -> run id -> its ranks
  for (const auto &run : set.runs) {
    if (!dated(run))
      continue;
    auto start = manifest_text(run, run_field::kStartUtc);
    if (start.empty() && !run.records.empty())
      start = run.records.front().time_utc; // a run.json written by hand: as the history dates it
    // Earliest rank's start, in seconds: as text "10:00:00Z" sorted after "10:00:00.5Z". A run
    // without a start is the oldest.
    const double start_s = start_seconds(start).value_or(0);
    auto [it, first] = runs[superseding_key(run, ranks, machines)].try_emplace(run_id_of(run));
    auto &host_run = it->second;
    if (first || start_s < host_run.start_s) {
      host_run.start_s = start_s;
      host_run.start = start;
    }
    if (const auto measured = measured_points(run.records))
      add_points(host_run.facts.points, *measured);
    else
      host_run.facts.points_unknown = true;
    if (const auto it = run.manifest.find(run_field::kPointsPlanned);
        it != run.manifest.end() && it->is_number_integer())
      host_run.facts.planned += it->get<long long>();
    host_run.facts.whole = host_run.facts.whole && whole(run);
    if (host_run.facts.plan.empty())
      host_run.facts.plan = plan_of(run);
    // A run a signal stopped (a retest scancelled, preempted, past its time limit) measured less
    // than it planned and check does not fail it: it supersedes nothing, so that a node's failed
    // run is still judged beside it.
    host_run.facts.stopped = host_run.facts.stopped || manifest_text(run, run_field::kStatus) ==
                                                           run_field::kInterruptedStatus;
  }
  std::set<std::pair<SupersedingKey, std::string>> superseded;
  // An older run still judged, and its points the newer runs measured again: those not judged.
  std::map<std::pair<SupersedingKey, std::string>, std::set<std::uint64_t>> measured_again;
  for (const auto &[key, of_key] : runs) {
    std::vector<std::pair<double, std::string>> newest_first;
    for (const auto &[id, host_run] : of_key)
      newest_first.emplace_back(host_run.start_s, id);
    std::sort(newest_first.rbegin(), newest_first.rend());
    std::vector<RunToSupersede> facts;
    for (const auto &[start_s, id] : newest_first)
      facts.push_back(of_key.at(id).facts);
    const auto outcomes = supersede(facts);
    for (std::size_t i = 0; i < outcomes.size(); ++i) {
      const auto &id = newest_first[i].second;
      if (!outcomes[i].judged) {
        superseded.insert({key, id});
        continue;
      }
      if (i == 0)
        continue;
      measured_again[{key, id}] = outcomes[i].measured_again;
      if (kept_beside)
        kept_beside->push_back(fmt::format("{}: run {} (started {}) is {}", std::get<0>(key), id,
                                           of_key.at(id).start, kept_beside_text(outcomes[i])));
    }
  }
  std::vector<std::string> dropped;
  std::vector<LoadedRun> kept;
  for (auto &run : set.runs) {
    const std::pair run_of_key{superseding_key(run, ranks, machines), run_id_of(run)};
    if (dated(run) && superseded.contains(run_of_key)) {
      dropped.push_back(run.dir);
      continue;
    }
    if (const auto again = measured_again.find(run_of_key);
        dated(run) && again != measured_again.end())
      set_aside_measured_again(run, again->second);
    kept.push_back(std::move(run));
  }
  set.runs = std::move(kept);
  return dropped;
}

std::vector<std::string> keep_latest_per_host(RunSet &set) {
  return keep_latest_per_host(set, [](const LoadedRun &run) {
    const auto status = manifest_text(run, run_field::kStatus);
    return status.empty() || status == run_field::kComplete;
  });
}

std::vector<std::string> superseded_runs(const RunSet &set) {
  const auto ranks = ranks_per_host(set);
  const auto machines = machine_of_runs(set);
  std::map<SupersedingKey, std::set<std::string>> ids;
  // Imports are never superseded (keep_latest_per_host): the note would point at a flag that
  // changes nothing for them.
  for (const auto &run : set.runs)
    if (run.manifest.is_object() && !run.manifest.contains(run_field::kImported))
      ids[superseding_key(run, ranks, machines)].insert(run_id_of(run));
  std::vector<std::string> out;
  for (const auto &[key, runs] : ids)
    if (runs.size() > 1)
      out.push_back(fmt::format(
          "{} has {} runs of suite '{}'{}", std::get<0>(key), runs.size(), std::get<1>(key),
          std::get<2>(key).empty() ? "" : " on " + std::get<2>(key) + " ranks"));
  return out;
}

} // namespace railgauge::analysis
