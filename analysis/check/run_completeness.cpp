#include "analysis/check/run_completeness.h"

#include <algorithm>
#include <map>
#include <set>

#include <fmt/format.h>

#include "records/per_gpu_parts.h"

namespace railgauge::check {
namespace {

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

} // namespace

std::vector<MissingRanks> missing_ranks(const analysis::RunSet &runs) {
  std::vector<RankOfRun> ranks;
  for (const auto &run : runs.runs) {
    const auto &m = run.manifest;
    if (!m.is_object() || !m.contains("world") || !m["world"].is_object())
      continue; // an import or a hand-made run: no world to count
    const auto &w = m["world"];
    const auto id = text_of(m, "run");
    if (id.empty() || !w.contains("size") || !w["size"].is_number_integer() ||
        !w.contains("rank") || !w["rank"].is_number_integer())
      continue;
    ranks.push_back(
        {id, text_of(m, "host"), w["size"].get<long long>(), w["rank"].get<long long>()});
  }
  return missing_ranks(ranks);
}

std::vector<MissingRanks> missing_ranks(const std::vector<RankOfRun> &ranks) {
  struct Seen {
    long long size = 0;
    std::set<long long> ranks;
    std::set<std::string> hosts;
  };
  std::map<std::string, Seen> by_run;
  for (const auto &rank : ranks) {
    if (rank.run.empty() || rank.world_size < 2)
      continue;
    auto &seen = by_run[rank.run];
    seen.size = std::max(seen.size, rank.world_size);
    seen.ranks.insert(rank.world_rank);
    seen.hosts.insert(rank.host);
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
    out.push_back(
        {id,
         {seen.hosts.begin(), seen.hosts.end()},
         fmt::format("run {} had {} ranks (world.size), {} read (ranks {}); {} missing "
                     "(ranks {}{}): give every node's run directory",
                     id, seen.size, read.size(), ranges_text(read), absent_count,
                     ranges_text(absent),
                     absent_count > static_cast<long long>(absent.size()) ? ", ..." : "")});
  }
  return out;
}

std::vector<std::string> incompleteness(const analysis::LoadedRun &run) {
  const auto &m = run.manifest;
  std::vector<std::string> why;
  if (!m.is_object())
    return why;
  if (m.contains("status")) {
    const auto status = text_of(m, "status");
    if (status != "complete") {
      // Why it ended: a fault (failed) or the hardware --expect named missing (refused).
      auto failure = text_of(m, "failure");
      if (failure.empty())
        failure = text_of(m, "refused");
      why.push_back(fmt::format("run.json says status '{}'{}, not complete",
                                status.empty() ? m["status"].dump() : status,
                                failure.empty() ? "" : " (" + failure + ")"));
    }
  }
  // The records the run wrote: check reads each GPU of an every-GPU point as a record too.
  const auto written = static_cast<long long>(
      std::count_if(run.records.begin(), run.records.end(),
                    [](const Record &r) { return !records::is_per_gpu_part(r); }));
  if (m.contains("points_planned") && m["points_planned"].is_number_integer() &&
      m["points_planned"].get<long long>() > written)
    why.push_back(fmt::format("{} of {} planned points have a record", written,
                              m["points_planned"].get<long long>()));
  if (!m.contains("counts") || !m["counts"].is_object() || m["counts"].empty())
    return why;
  // run.json counts the last record of each point (a resumed point's retry replaces its error);
  // an import counts every record. Either agreeing is agreement.
  std::map<std::string, std::string> last; // point -> status of its last record
  std::map<std::string, long long> every, by_point;
  for (const auto &r : run.records) {
    if (records::is_per_gpu_part(r))
      continue;
    const auto status = std::string(to_string(r.status));
    last[r.key + " " + (r.axes.is_object() ? r.axes : r.params).dump()] = status;
    ++every[status];
  }
  for (const auto &[point, status] : last)
    ++by_point[status];
  std::map<std::string, long long> said;
  for (const auto &[status, n] : m["counts"].items())
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
  why.push_back(fmt::format("run.json's counts disagree with the records read: {}", differ));
  return why;
}

} // namespace railgauge::check
