#include "analysis/history/lost_ranks.h"

#include <algorithm>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "analysis/check/run_completeness.h"

namespace railgauge::history {
namespace {

using json = nlohmann::json;

// The incomplete of a survivor excused by its loss begins so (check::lost_ranks_elsewhere).
constexpr std::string_view kLostExcuse = "stopped by lost ";
// and what check::incompleteness says next of a run that stopped early.
constexpr std::string_view kStatusSays = "; run.json says status ";
// The end of the excuse's count of points it left unmeasured, when it has one.
constexpr std::string_view kNotMeasured = " planned points not measured (not passed)";

bool names(const LostRanks &lost, const std::string &host) {
  return std::any_of(lost.begin(), lost.end(), [&](const auto &l) { return l.second == host; });
}

} // namespace

std::string stored_lost_ranks(const analysis::LoadedRun &run) {
  const auto lost = check::lost_ranks_of(run.manifest);
  if (lost.empty())
    return "";
  json out = json::array();
  for (const auto &[rank, host] : lost)
    out.push_back(json::array({rank, host}));
  return out.dump(-1, ' ', false, json::error_handler_t::replace);
}

LostRanks parsed_lost_ranks(const Value &text) {
  if (!std::holds_alternative<std::string>(text))
    return {};
  const auto j = json::parse(std::get<std::string>(text), nullptr, /*allow_exceptions=*/false);
  LostRanks lost;
  if (!j.is_array())
    return lost;
  for (const auto &l : j) {
    if (!l.is_array() || l.size() != 2 || !l[0].is_number_integer() || !l[1].is_string())
      return {};
    lost.emplace_back(l[0].get<long long>(), l[1].get<std::string>());
  }
  return lost;
}

std::optional<std::string> lost_rank_excuse(const std::string &incomplete) {
  const auto excused = std::string(check::kNotJudged) + std::string(kLostExcuse);
  if (!incomplete.starts_with(excused))
    return std::nullopt;
  // Up to what check::incompleteness says next: the status run.json gives, or, in a run.json that
  // gives none, its first other words.
  auto end = incomplete.find(kStatusSays);
  if (end == std::string::npos) {
    const auto counted = incomplete.find(kNotMeasured, excused.size());
    end = incomplete.find("; ", counted == std::string::npos ? excused.size() : counted);
  }
  return incomplete.substr(check::kNotJudged.size(), end == std::string::npos
                                                         ? std::string::npos
                                                         : end - check::kNotJudged.size());
}

void lock_lost_ranks_of(Database &db, const std::string &run_id) {
  if (db.dialect() == "postgresql")
    db.execute("SELECT pg_advisory_xact_lock(730415, hashtext(?))", {run_id});
}

bool stopped_at(const std::string &incomplete, const std::string &reason) {
  const auto stopped = incomplete.find("(the run stopped after ");
  return stopped != std::string::npos &&
         incomplete.find("never ran): " + reason, stopped) != std::string::npos;
}

std::optional<std::string> lost_in_turn_stored(Database &db, const std::string &run_id,
                                               const std::string &host, const LostRanks &lost) {
  std::optional<std::string> first;
  const auto peers = db.query("SELECT ru.id, h.name, ru.incomplete, ru.lost_ranks FROM runs ru "
                              "JOIN hosts h ON h.id = ru.host_id WHERE ru.run_id = ? AND "
                              "ru.lost_ranks IS NOT NULL AND ru.lost_ranks <> '' ORDER BY ru.id",
                              {run_id});
  for (const auto &row : peers) {
    const auto peer_host = as_text(row.at(1));
    if (peer_host == host || !names(lost, peer_host) || !names(parsed_lost_ranks(row.at(3)), host))
      continue;
    if (!first)
      first = peer_host;
    const auto incomplete = as_text(row.at(2));
    if (!lost_rank_excuse(incomplete))
      continue;
    // Stored excused before this run was: judged again, with the point its loss broke counted.
    db.execute("UPDATE runs SET incomplete = ?, failed_records = (SELECT COUNT(*) FROM records r "
               "WHERE r.run_id = ? AND r.per_gpu = 0 AND r.status IN ('failed', 'error')) WHERE "
               "id = ?",
               {fmt::format("{}; {}", check::lost_in_turn_text(host),
                            incomplete.substr(check::kNotJudged.size())),
                row.at(0), row.at(0)});
  }
  return first;
}

} // namespace railgauge::history
