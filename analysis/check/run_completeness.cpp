#include "analysis/check/run_completeness.h"

#include <algorithm>
#include <cstdlib>
#include <map>
#include <regex>
#include <set>

#include <fmt/format.h>

#include "harness/run_fields.h"
#include "records/per_gpu_parts.h"

namespace railgauge::check {
namespace {

constexpr std::string_view kCountsDisagree = "run.json's counts disagree with the records read";

std::string text_of(const nlohmann::json &m, const char *field) {
  return m.contains(field) && m[field].is_string() ? m[field].get<std::string>() : "";
}

// "0-7, 9, 12-15": ascending ranks as ranges.
std::string ranges_text(const std::vector<long long> &ranks) {
  std::string out;
  for (std::size_t i = 0; i < ranks.size();) {
    std::size_t j = i;
    while (j + 1 < ranks.size() && ranks[j + 1] == ranks[j] + 1)
      ++j;
    out += fmt::format("{}{}", out.empty() ? "" : ", ",
                       j == i ? fmt::format("{}", ranks[i])
                              : fmt::format("{}-{}", ranks[i], ranks[j]));
    i = j + 1;
  }
  return out;
}

// Each point's result the run wrote: those judged, and those a newer run measured again (the
// run is judged beside it for the rest).
std::vector<const Record *> results_written(const analysis::LoadedRun &run) {
  std::vector<const Record *> out;
  for (const auto *records : {&run.records, &run.superseded})
    for (const auto &r : *records)
      out.push_back(&r);
  return out;
}

// The records the run wrote: check reads each GPU of an every-GPU point as a record too.
long long records_written(const analysis::LoadedRun &run) {
  const auto written = results_written(run);
  return static_cast<long long>(std::count_if(written.begin(), written.end(), [](const Record *r) {
    return !records::is_per_gpu_part(*r);
  }));
}

// "; 6 of 9 planned points not measured (not passed)", or "" when run.json plans none beyond the
// records read.
// The point a signal cut or a lost peer broke has an error record and no measurement: of 12
// planned with 1 measured and 1 cut, 11 are not measured.
std::string not_measured(const analysis::LoadedRun &run) {
  const auto &m = run.manifest;
  const auto written = results_written(run);
  const auto measured =
      static_cast<long long>(std::count_if(written.begin(), written.end(), [](const Record *r) {
        return !records::is_per_gpu_part(*r) && r->status != Status::error;
      }));
  if (!m.contains(run_field::kPointsPlanned) || !m[run_field::kPointsPlanned].is_number_integer() ||
      m[run_field::kPointsPlanned].get<long long>() <= measured)
    return "";
  return fmt::format("; {} of {} planned points not measured (not passed)",
                     m[run_field::kPointsPlanned].get<long long>() - measured,
                     m[run_field::kPointsPlanned].get<long long>());
}

// The command that ran it ("run", "burnin"), from run.json's argv; "run" when it does not say.
std::string command_of(const nlohmann::json &m) {
  if (m.contains(run_field::kArgv) && m[run_field::kArgv].is_array() &&
      m[run_field::kArgv].size() > 1 && m[run_field::kArgv][1].is_string())
    return m[run_field::kArgv][1].get<std::string>();
  return "run";
}

} // namespace

std::vector<std::pair<long long, std::string>> lost_ranks_of(const nlohmann::json &m) {
  std::vector<std::pair<long long, std::string>> lost;
  if (!m.is_object() || !m.contains(run_field::kLostRanks) || !m[run_field::kLostRanks].is_array())
    return lost;
  for (const auto &l : m[run_field::kLostRanks]) {
    if (!l.is_object() || !l.contains(run_field::kLostRank) ||
        !l[run_field::kLostRank].is_number_integer())
      return {};
    lost.emplace_back(l[run_field::kLostRank].get<long long>(), text_of(l, run_field::kLostHost));
  }
  return lost;
}

std::vector<MissingRanks> missing_ranks(const analysis::RunSet &runs) {
  std::vector<RankOfRun> ranks;
  for (const auto &run : runs.runs) {
    const auto &m = run.manifest;
    if (!m.is_object() || !m.contains(run_field::kWorld) || !m[run_field::kWorld].is_object())
      continue; // an import or a hand-made run: no world to count
    const auto &w = m[run_field::kWorld];
    const auto id = text_of(m, run_field::kRun);
    if (id.empty() || !w.contains(run_field::kWorldSize) ||
        !w[run_field::kWorldSize].is_number_integer() || !w.contains(run_field::kWorldRank) ||
        !w[run_field::kWorldRank].is_number_integer())
      continue;
    ranks.push_back({id, text_of(m, run_field::kHost), w[run_field::kWorldSize].get<long long>(),
                     w[run_field::kWorldRank].get<long long>(), lost_ranks_of(m)});
  }
  return missing_ranks(ranks);
}

namespace {

// Whether a rank of run `id` on `host` names a rank on `named_host` as lost.
bool names_as_lost(const analysis::RunSet &runs, const std::string &id, const std::string &host,
                   const std::string &named_host) {
  for (const auto &other : runs.runs) {
    const auto &m = other.manifest;
    if (text_of(m, run_field::kRun) != id || text_of(m, run_field::kHost) != host)
      continue;
    for (const auto &[rank, lost_host] : lost_ranks_of(m))
      if (lost_host == named_host)
        return true;
  }
  return false;
}

} // namespace

std::optional<std::string> lost_ranks_elsewhere(const analysis::LoadedRun &run,
                                                const std::string &host) {
  const auto lost = lost_ranks_of(run.manifest);
  if (lost.empty())
    return std::nullopt;
  std::string named;
  for (const auto &[rank, lost_host] : lost) {
    if (lost_host.empty() || lost_host == host)
      return std::nullopt;
    named += fmt::format("{}rank {} on {}", named.empty() ? "" : ", ", rank, lost_host);
  }
  return fmt::format("stopped by lost {}", named) + not_measured(run);
}

std::optional<std::string> lost_in_turn_by(const analysis::LoadedRun &run, const std::string &host,
                                           const analysis::RunSet &runs) {
  const auto id = text_of(run.manifest, run_field::kRun);
  for (const auto &[rank, lost_host] : lost_ranks_of(run.manifest))
    if (!lost_host.empty() && lost_host != host && names_as_lost(runs, id, lost_host, host))
      return lost_host;
  return std::nullopt;
}

std::string lost_in_turn_text(const std::string &other_host) {
  return fmt::format("the rank it lost on {} names this node lost in turn: the link between "
                     "them, or either node, failed",
                     other_host);
}

std::optional<std::string> stopped_by_lost_rank_elsewhere(const analysis::LoadedRun &run,
                                                          const std::string &host,
                                                          const analysis::RunSet &runs) {
  // Each names the other (rank 0 lost its client, the client lost rank 0's store): the link
  // between them, or either node. Neither is excused.
  if (lost_in_turn_by(run, host, runs))
    return std::nullopt;
  return lost_ranks_elsewhere(run, host);
}

namespace {

// When every absent rank of `m` is one the ranks read name as lost on a known host, those hosts
// are the nodes judged, not the survivors'.
void blame_lost(MissingRanks &m, const std::map<long long, std::string> &lost) {
  if (m.absent_count != static_cast<long long>(m.absent.size()) ||
      !std::all_of(m.absent.begin(), m.absent.end(), [&](long long r) { return lost.count(r); }))
    return;
  std::set<std::string> hosts;
  std::string named;
  for (const long long r : m.absent) {
    hosts.insert(lost.at(r));
    named += fmt::format("{}rank {} on {}", named.empty() ? "" : ", ", r, lost.at(r));
  }
  m.hosts.assign(hosts.begin(), hosts.end());
  m.why += fmt::format("; the ranks read name the missing ones as lost ({}): their nodes are "
                       "judged, not the survivors'",
                       named);
}

} // namespace

std::vector<MissingRanks> missing_ranks(const std::vector<RankOfRun> &ranks) {
  struct Seen {
    long long size = 0;
    std::set<long long> ranks;
    std::set<std::string> hosts;
    std::map<long long, std::string> lost; // rank -> host, as the ranks read name them
  };
  std::map<std::string, Seen> by_run;
  for (const auto &rank : ranks) {
    if (rank.run.empty() || rank.world_size < 2)
      continue;
    auto &seen = by_run[rank.run];
    seen.size = std::max(seen.size, rank.world_size);
    seen.ranks.insert(rank.world_rank);
    seen.hosts.insert(rank.host);
    for (const auto &[lost_rank, host] : rank.lost)
      if (!host.empty())
        seen.lost[lost_rank] = host;
  }
  std::vector<MissingRanks> out;
  for (const auto &[id, seen] : by_run) {
    // The first absent ranks are named, the rest counted: a run.json may claim any size, and
    // the walk below takes at most kNamed steps more than the ranks read.
    constexpr std::size_t kNamed = 64;
    // The ranks read that the world holds (a loop: clang 14 captures no structured binding).
    long long in_world = 0;
    for (const long long r : seen.ranks)
      in_world += r >= 0 && r < seen.size;
    const long long absent_count = seen.size - in_world;
    if (absent_count <= 0)
      continue;
    std::vector<long long> absent;
    for (long long r = 0; r < seen.size && absent.size() < kNamed; ++r)
      if (!seen.ranks.count(r))
        absent.push_back(r);
    const std::vector<long long> read(seen.ranks.begin(), seen.ranks.end());
    out.push_back({id,
                   {seen.hosts.begin(), seen.hosts.end()},
                   fmt::format("run {} had {} ranks (world.size), {} read (ranks {}); {} missing "
                               "(ranks {}{}): give every node's run directory",
                               id, seen.size, read.size(), ranges_text(read), absent_count,
                               ranges_text(absent),
                               absent_count > static_cast<long long>(absent.size()) ? ", ..." : ""),
                   absent,
                   absent_count});
    blame_lost(out.back(), seen.lost);
  }
  return out;
}

bool is_signal_cut(const Record &r) {
  return r.status == Status::error && r.reason &&
         r.reason->starts_with(run_field::kInterruptedReasonPrefix);
}

bool cut_point_may_have_hung(const Record &r) {
  static const std::regex kRan(R"(, ([0-9.]+) s in \(--point-timeout ([0-9.e+]+) s\))");
  std::smatch m;
  if (!r.reason || !std::regex_search(*r.reason, m, kRan))
    return true;
  const double ran_s = std::strtod(m[1].str().c_str(), nullptr),
               timeout_s = std::strtod(m[2].str().c_str(), nullptr);
  constexpr double kLongestWithoutTimeoutS = 300;
  if (ran_s > (timeout_s > 0 ? timeout_s / 2 : kLongestWithoutTimeoutS))
    return true;
  const auto planned = r.params.is_object() ? r.params.find("duration_s") : r.params.end();
  return r.params.is_object() && planned != r.params.end() && planned->is_number() &&
         ran_s > 2 * planned->get<double>() + 60;
}

std::optional<std::string> stopped_by_signal(const analysis::LoadedRun &run) {
  const auto &m = run.manifest;
  if (!m.is_object() || text_of(m, run_field::kStatus) != run_field::kInterruptedStatus)
    return std::nullopt;
  for (const auto &w : incompleteness(run))
    if (w.starts_with(kCountsDisagree))
      return std::nullopt;
  // A cut point that may have hung: the node's fault, not the signal's.
  for (const auto *r : results_written(run))
    if (is_signal_cut(*r) && cut_point_may_have_hung(*r))
      return std::nullopt;
  auto signal = text_of(m, run_field::kInterrupted);
  std::string text = fmt::format("stopped by {} from outside the run (a job's time limit, "
                                 "scancel, Ctrl-C)",
                                 signal.empty() ? "a signal" : signal);
  text += not_measured(run);
  return text + fmt::format(": give it the time it needs, or continue it with `railgauge {} ... "
                            "--resume {}`",
                            command_of(m), run.dir.empty() ? "RUN_DIR" : run.dir);
}

std::optional<std::string> stopped_from_outside(const analysis::LoadedRun &run,
                                                const std::string &host,
                                                const analysis::RunSet &runs) {
  if (auto lost = stopped_by_lost_rank_elsewhere(run, host, runs))
    return lost;
  // A file of the run that cannot be read (a record line torn in half) is evidence lost besides
  // the signal's cut, as ingest holds it (history/ingest.cpp).
  for (const auto &u : runs.unreadable)
    if (!run.dir.empty() && u.path.starts_with(run.dir + "/"))
      return std::nullopt;
  return stopped_by_signal(run);
}

std::string signal_cut_point_detail(const std::string &reason) {
  return fmt::format("{}a signal from outside the run cut it; {}", kNotJudged, reason);
}

std::string stopped_node_detail(const std::string &detail) {
  return fmt::format("{}a run of this node was stopped from outside (run-complete says by what); "
                     "{}",
                     kNotJudged, detail);
}

bool is_point_that_stopped_the_run(const analysis::LoadedRun &run, const Record &r) {
  if (r.status != Status::error || !r.reason || r.reason->empty())
    return false;
  if (is_signal_cut(r) &&
      text_of(run.manifest, run_field::kStatus) == run_field::kInterruptedStatus)
    return !cut_point_may_have_hung(r);
  const auto failure = text_of(run.manifest, run_field::kFailure);
  return failure.starts_with("the run stopped after ") &&
         failure.find("never ran): " + *r.reason) != std::string::npos;
}

std::vector<std::string> incompleteness(const analysis::LoadedRun &run) {
  const auto &m = run.manifest;
  std::vector<std::string> why;
  if (!m.is_object())
    return why;
  if (m.contains(run_field::kStatus)) {
    const auto status = text_of(m, run_field::kStatus);
    if (status != run_field::kComplete) {
      // Why it ended: a fault (failed) or the hardware --expect named missing (refused).
      auto failure = text_of(m, run_field::kFailure);
      if (failure.empty())
        failure = text_of(m, run_field::kRefused);
      why.push_back(fmt::format("run.json says status '{}'{}, not complete",
                                status.empty() ? m[run_field::kStatus].dump() : status,
                                failure.empty() ? "" : " (" + failure + ")"));
    }
  }
  const auto written = records_written(run);
  if (m.contains(run_field::kPointsPlanned) && m[run_field::kPointsPlanned].is_number_integer() &&
      m[run_field::kPointsPlanned].get<long long>() > written)
    why.push_back(fmt::format("{} of {} planned points have a record", written,
                              m[run_field::kPointsPlanned].get<long long>()));
  if (!m.contains(run_field::kCounts) || !m[run_field::kCounts].is_object() ||
      m[run_field::kCounts].empty())
    return why;
  // run.json counts the last record of each point (a resumed point's retry replaces its error);
  // an import counts every record. Either agreeing is agreement.
  std::map<std::string, std::string> last; // point -> status of its last record
  std::map<std::string, long long> every, by_point;
  for (const auto *r : results_written(run)) {
    if (records::is_per_gpu_part(*r))
      continue;
    const auto status = std::string(to_string(r->status));
    last[r->key + " " + (r->axes.is_object() ? r->axes : r->params).dump()] = status;
    ++every[status];
  }
  for (const auto &[point, status] : last)
    ++by_point[status];
  std::map<std::string, long long> said;
  for (const auto &[status, n] : m[run_field::kCounts].items())
    if (n.is_number_integer() && n.get<long long>() != 0)
      said[status] = n.get<long long>();
  if (said == every || said == by_point)
    return why;
  std::string differ;
  for (const auto &[status, n] : said)
    if (by_point[status] != n)
      differ += fmt::format("{}{} {} in run.json, {} read", differ.empty() ? "" : "; ", status, n,
                            by_point[status]);
  for (const auto &[status, n] : by_point)
    if (n != 0 && !said.count(status))
      differ += fmt::format("{}{} 0 in run.json, {} read", differ.empty() ? "" : "; ", status, n);
  why.push_back(fmt::format("{}: {}", kCountsDisagree, differ));
  return why;
}

} // namespace railgauge::check
