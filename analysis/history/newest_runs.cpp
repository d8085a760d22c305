#include "analysis/history/newest_runs.h"

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
  std::string run_id, host, suite, start;
  std::int64_t world = -1;
};

// A run of a host (run id, host, suite, world), as the ranks it stored there.
using RunOfHost = std::tuple<std::string, std::string, std::string, std::int64_t>;
// What a newer run replaces: host, suite, world, ranks on the host, machine.
using SupersedingKey = std::tuple<std::string, std::string, std::int64_t, std::size_t, std::string>;

} // namespace

NewestRuns newest_runs(Database &db) {
  std::vector<std::int64_t> kept;
  std::vector<OwnRow> own;
  std::vector<analysis::RunMachine> machines; // one per own row: its directory, host, machine
  db.for_each(std::string("SELECT ru.id, ru.source, ru.run_id, h.name, ru.suite, "
                          "COALESCE(ru.world_size, -1), ru.start_utc, ru.dir, ru.inventory FROM "
                          "runs ru JOIN hosts h ON h.id = ru.host_id ORDER BY ru.id"),
              {}, [&](const Row &row) {
                const auto id = as_int(row[0]).value_or(0);
                if (as_text(row[1]) != "railgauge") {
                  kept.push_back(id); // an import or a bare records.jsonl: never superseded
                  return;
                }
                own.push_back({id, as_text(row[2]), as_text(row[3]), as_text(row[4]),
                               as_text(row[6]), as_int(row[5]).value_or(-1)});
                machines.push_back(machine_of_row(as_text(row[7]), own.back().host, row[8]));
                // Two machines' runs stored from one path (each ran `db ingest .`) were one.
                machines.back().key = std::to_string(id);
              });
  const auto machine_of = analysis::machine_of_runs(machines);
  // Each run of a host: its ranks there, its earliest rank's start, its machine.
  struct Run {
    std::size_t ranks = 0;
    std::string start, machine;
    bool dated = false;
  };
  std::map<RunOfHost, Run> runs;
  // A run whose start cannot date it (analysis::plausible_start) is judged beside its host's
  // newest, never taken for it: as over directories.
  const auto undated = [&](const OwnRow &r) {
    return !r.start.empty() && !analysis::plausible_start(r.start);
  };
  for (std::size_t i = 0; i < own.size(); ++i) {
    if (undated(own[i]))
      continue;
    auto &run = runs[{own[i].run_id, own[i].host, own[i].suite, own[i].world}];
    run.start = run.dated ? std::min(run.start, own[i].start) : own[i].start;
    run.dated = true;
    ++run.ranks;
    run.machine = machine_of.at(machines[i].key);
  }
  std::map<SupersedingKey, std::pair<std::string, std::string>> newest; // (start, run id)
  for (const auto &[of_host, run] : runs) {
    auto &best = newest[{std::get<1>(of_host), std::get<2>(of_host), std::get<3>(of_host),
                         run.ranks, run.machine}];
    best = std::max(best, std::pair{run.start, std::get<0>(of_host)});
  }
  std::vector<analysis::RunMachine> newest_machines;
  for (std::size_t i = 0; i < own.size(); ++i) {
    const auto &r = own[i];
    if (undated(r)) {
      kept.push_back(r.id);
      newest_machines.push_back(machines[i]);
      continue;
    }
    const auto &run = runs.at({r.run_id, r.host, r.suite, r.world});
    if (newest.at({r.host, r.suite, r.world, run.ranks, run.machine}).second != r.run_id)
      continue;
    kept.push_back(r.id);
    newest_machines.push_back(machines[i]);
  }
  NewestRuns out;
  out.ids = kept.empty() ? "NULL" : fmt::format("{}", fmt::join(kept, ","));
  out.shared_host_names = analysis::shared_host_names(newest_machines);
  return out;
}

} // namespace railgauge::history
