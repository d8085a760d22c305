#include "analysis/history/newest_runs.h"

#include <algorithm>
#include <map>
#include <set>
#include <tuple>
#include <utility>

#include <fmt/format.h>

#include "analysis/history/history_builtins.h"

namespace railgauge::history {
namespace {

using json = nlohmann::json;

// The machine of a stored inventory ("" or NULL: stored before the database kept inventories,
// or a run.json without one), its text parsed and dropped: a fleet's history is not held whole.
analysis::RunMachine machine_of_row(std::string dir, std::string host, const Value &inventory) {
  const auto text = as_text(inventory);
  return analysis::machine_of_inventory(
      std::move(dir), std::move(host),
      text.empty() ? json() : json::parse(text, nullptr, /*allow_exceptions=*/false));
}

// One stored row of railgauge's own run.
struct OwnRow {
  std::int64_t id = 0;
  std::string run_id, host, suite, start, stored;
  std::int64_t world = -1;
};

// A run of a host (run id, host, suite, world), as the ranks it stored there.
using RunOfHost = std::tuple<std::string, std::string, std::string, std::int64_t>;
// What a newer run replaces: host, suite, world, ranks on the host, machine.
using SupersedingKey = std::tuple<std::string, std::string, std::int64_t, std::size_t, std::string>;

// A run of a host as its rows date it.
struct Run {
  std::vector<std::int64_t> rows;
  std::size_t ranks = 0;
  double start_s = 0;         // its earliest rank's start (0: none, the oldest)
  std::string start;          // that start as run.json says it
  std::int64_t first_row = 0; // the order it was stored in
  double stored_s = 0;        // when its first row was stored
  std::string machine;
};

// More than this after it was stored, a run's start is a clock set ahead: a node's clock and the
// ingesting machine's agree far better, and a run is stored after it started. And the order in
// which runs were stored tells which ran last only between ingests this far apart: one ingest of
// a tree stores its runs in the order of their paths.
constexpr double kClockSlackS = 3600;

// The UTC seconds a row is ordered by, and whether its own start dates it: a start that is not
// plausible, or that is after the row was stored, is replaced by when it was stored.
std::pair<double, bool> dated_start(const OwnRow &r) {
  const auto stored = analysis::start_seconds(r.stored).value_or(0);
  if (r.start.empty())
    return {0, true};
  const auto start = analysis::start_seconds(r.start);
  if (!start || *start > stored + kClockSlackS)
    return {stored, false};
  return {*start, true};
}

// The newest run of each superseding key by start, and the one stored last where it says it
// started earlier than that one: both are judged (newest_runs.h).
void keep_newest(const std::map<RunOfHost, Run> &runs, std::vector<std::int64_t> &kept,
                 NewestRuns &out) {
  std::map<SupersedingKey, std::pair<const RunOfHost *, const RunOfHost *>> newest; // start, stored
  for (const auto &[of_host, run] : runs) {
    auto &[by_start, by_row] = newest[{std::get<1>(of_host), std::get<2>(of_host),
                                       std::get<3>(of_host), run.ranks, run.machine}];
    if (!by_start || std::pair{run.start_s, std::get<0>(of_host)} >
                         std::pair{runs.at(*by_start).start_s, std::get<0>(*by_start)})
      by_start = &of_host;
    if (!by_row || run.first_row > runs.at(*by_row).first_row)
      by_row = &of_host;
  }
  for (const auto &[key, pair] : newest) {
    const auto &[by_start, by_row] = pair;
    const auto &start_run = runs.at(*by_start);
    kept.insert(kept.end(), start_run.rows.begin(), start_run.rows.end());
    const auto &late = runs.at(*by_row);
    if (by_row == by_start || late.stored_s <= start_run.stored_s + kClockSlackS)
      continue;
    kept.insert(kept.end(), late.rows.begin(), late.rows.end());
    out.stored_late.insert(late.rows.begin(), late.rows.end());
    out.dating_problems.emplace_back(
        std::get<0>(key),
        fmt::format("run {} was stored after run {} but says it started before it ({} < {}): its "
                    "clock was behind, or it is an old run ingested late; both are judged until "
                    "a run of the host newer than both is stored",
                    std::get<0>(*by_row), std::get<0>(*by_start), late.start, start_run.start));
  }
}

} // namespace

NewestRuns newest_runs(Database &db) {
  NewestRuns out;
  std::vector<std::int64_t> kept;
  std::vector<OwnRow> own;
  std::vector<analysis::RunMachine> machines; // one per own row: its directory, host, machine
  db.for_each(std::string("SELECT ru.id, ru.source, ru.run_id, h.name, ru.suite, "
                          "COALESCE(ru.world_size, -1), ru.start_utc, ru.dir, ru.inventory, "
                          "ru.ingested_utc FROM runs ru JOIN hosts h ON h.id = ru.host_id "
                          "ORDER BY ru.id"),
              {}, [&](const Row &row) {
                const auto id = as_int(row[0]).value_or(0);
                if (as_text(row[1]) != "railgauge") {
                  kept.push_back(id); // an import or a bare records.jsonl: never superseded
                  out.order_s[id] =
                      analysis::start_seconds(as_text(row[6]))
                          .value_or(analysis::start_seconds(as_text(row[9])).value_or(0));
                  return;
                }
                own.push_back({id, as_text(row[2]), as_text(row[3]), as_text(row[4]),
                               as_text(row[6]), as_text(row[9]), as_int(row[5]).value_or(-1)});
                machines.push_back(machine_of_row(as_text(row[7]), own.back().host, row[8]));
                // Two machines' runs stored from one path (each ran `db ingest .`) were one.
                machines.back().key = std::to_string(id);
              });
  const auto machine_of = analysis::machine_of_runs(machines);
  std::map<RunOfHost, Run> runs;
  std::set<std::pair<std::string, std::string>> said_ahead; // host, run id
  for (std::size_t i = 0; i < own.size(); ++i) {
    const auto &r = own[i];
    const auto [start_s, dated] = dated_start(r);
    out.order_s[r.id] = start_s;
    if (!dated) {
      // Judged beside its host's newest, never taken for it: as over directories.
      kept.push_back(r.id);
      if (analysis::plausible_start(r.start) && said_ahead.emplace(r.host, r.run_id).second)
        out.dating_problems.emplace_back(
            r.host, fmt::format("run {} says it started {}, after the history stored it ({}): "
                                "its clock was ahead; it is dated by when it was stored, judged "
                                "beside the host's newest run and never taken for it",
                                r.run_id, r.start, r.stored));
      continue;
    }
    auto &run = runs[{r.run_id, r.host, r.suite, r.world}];
    if (run.rows.empty() || start_s < run.start_s) {
      run.start_s = start_s;
      run.start = r.start;
    }
    const auto stored_s = analysis::start_seconds(r.stored).value_or(0);
    run.stored_s = run.rows.empty() ? stored_s : std::min(run.stored_s, stored_s);
    run.first_row = run.rows.empty() ? r.id : std::min(run.first_row, r.id);
    run.rows.push_back(r.id);
    ++run.ranks;
    run.machine = machine_of.at(machines[i].key);
  }
  keep_newest(runs, kept, out);
  std::sort(kept.begin(), kept.end());
  std::vector<analysis::RunMachine> newest_machines;
  for (std::size_t i = 0; i < own.size(); ++i)
    if (std::binary_search(kept.begin(), kept.end(), own[i].id))
      newest_machines.push_back(machines[i]);
  out.ids = kept.empty() ? "NULL" : fmt::format("{}", fmt::join(kept, ","));
  out.shared_host_names = analysis::shared_host_names(newest_machines);
  return out;
}

} // namespace railgauge::history
