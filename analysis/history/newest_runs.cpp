#include "analysis/history/newest_runs.h"

#include <algorithm>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <tuple>
#include <utility>

#include <fmt/format.h>

#include "analysis/history/history_builtins.h"
#include "analysis/run_points.h"
#include "harness/digest.h"
#include "harness/run_fields.h"

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
  bool stopped = false; // run.json status interrupted: a signal stopped it
  bool whole = true;    // runs.incomplete "" (NULL: stored before it, by its status)
  std::string plan;     // runs.plan_digest
  std::optional<std::string> points_digest; // none: stored before schema version 9
  long long planned = 0;                    // runs.points_planned (0: not said)
};

// A run of a host (run id, host, suite, world), as the ranks it stored there.
using RunOfHost = std::tuple<std::string, std::string, std::string, std::int64_t>;
// What a newer run replaces: host, suite, world, ranks on the host, machine.
using SupersedingKey = std::tuple<std::string, std::string, std::int64_t, std::size_t, std::string>;

// A run of a host as its rows date it.
struct Run {
  std::vector<std::int64_t> rows;
  std::size_t ranks = 0;
  double start_s = 0;  // its earliest rank's start (0: none, the oldest)
  std::string start;   // that start as run.json says it
  double stored_s = 0; // when its first row was stored
  std::string stored;  // that time as the history wrote it
  std::string machine;
  bool stopped = false;        // a rank of it was stopped by a signal (analysis/run_set.h's
                               // keep_latest_per_host: such a run supersedes nothing)
  bool whole = true;           // every rank of it did all its run.json planned
  bool points_unknown = false; // a rank of it was stored before its points were
  std::string plan;
  long long planned = 0;                   // its ranks' points_planned together
  std::vector<std::string> points_digests; // of its ranks' rows
};

// Reads the points of runs' rows (runs.points), each run's ranks added together: only for the
// runs of a host whose measured points differ, which a fleet's weekly burn-ins seldom do.
using PointsOfRows = std::function<analysis::PointCounts(const std::vector<std::int64_t> &rows)>;

// More than this after it was stored, a run's start is a clock set ahead: a node's clock and the
// ingesting machine's agree far better, and a run is stored after it started. And the order in
// which runs were stored tells which ran last only between ingests this far apart: one ingest of
// a tree stores its runs in the order of their paths.
constexpr double kClockSlackS = 3600;

// How a row is dated: by its own start; by when it was stored, its start being after that (a
// clock ahead: it takes part as of that time); or not at all (a start that cannot be read, judged
// beside its host's newest as over directories).
enum class Dating { start, stored, none };

std::pair<double, Dating> dated_start(const OwnRow &r) {
  const auto stored = analysis::start_seconds(r.stored).value_or(0);
  if (r.start.empty())
    return {0, Dating::start};
  const auto start = analysis::start_seconds(r.start);
  if (!start)
    return {stored, Dating::none};
  if (*start > stored + kClockSlackS)
    return {stored, Dating::stored};
  return {*start, Dating::start};
}

using RunEntry = const std::pair<const RunOfHost, Run> *;

// Whether each run (in `runs`' order) was stored more than kClockSlackS after a run that says it
// started later: a clock behind, or an old run ingested late.
std::vector<bool> stored_late_flags(const std::vector<RunEntry> &runs) {
  std::vector<std::size_t> by_stored(runs.size());
  for (std::size_t i = 0; i < runs.size(); ++i)
    by_stored[i] = i;
  std::sort(by_stored.begin(), by_stored.end(), [&](std::size_t a, std::size_t b) {
    return runs[a]->second.stored_s < runs[b]->second.stored_s;
  });
  std::vector<bool> late(runs.size(), false);
  double latest_start_before = -1;
  std::size_t j = 0;
  for (const auto i : by_stored) {
    const auto &run = runs[i]->second;
    for (;
         j < by_stored.size() && runs[by_stored[j]]->second.stored_s + kClockSlackS < run.stored_s;
         ++j)
      latest_start_before = std::max(latest_start_before, runs[by_stored[j]]->second.start_s);
    late[i] = run.start_s < latest_start_before;
  }
  return late;
}

// How many ingests (stored times more than kClockSlackS apart) stored runs after `run`.
int ingests_after(const Run &run, const std::vector<RunEntry> &runs) {
  std::vector<double> after;
  for (const auto *other : runs)
    if (other->second.stored_s > run.stored_s + kClockSlackS)
      after.push_back(other->second.stored_s);
  std::sort(after.begin(), after.end());
  int ingests = 0;
  for (std::size_t i = 0; i < after.size(); ++i)
    ingests += i == 0 || after[i] > after[i - 1] + kClockSlackS;
  return ingests;
}

// What becomes of each run of one superseding key, `newest_first` their order
// (analysis/run_points.h). Runs whose ranks measured the same points alike are told so by their
// rows' digests; the points themselves are read only when an older run may be judged beside
// newer ones, to say how many of its points they measured again.
std::vector<analysis::SupersedeOutcome> judged_runs(const std::vector<RunEntry> &runs,
                                                    const std::vector<std::size_t> &newest_first,
                                                    const PointsOfRows &points_of) {
  const auto facts = [&](bool read_points) {
    std::vector<analysis::RunToSupersede> out;
    for (const auto i : newest_first) {
      const auto &run = runs[i]->second;
      analysis::RunToSupersede f{.points_unknown = run.points_unknown,
                                 .whole = run.whole,
                                 .plan = run.plan,
                                 .planned = run.planned,
                                 .stopped = run.stopped};
      if (run.points_unknown) {
      } else if (read_points) {
        f.points = points_of(run.rows);
      } else {
        auto digests = run.points_digests;
        std::sort(digests.begin(), digests.end());
        f.points[Fnv1a64().add(fmt::format("{}", fmt::join(digests, ","))).value()] = 1;
      }
      out.push_back(std::move(f));
    }
    return out;
  };
  auto outcomes = analysis::supersede(facts(false));
  if (std::any_of(outcomes.begin() + 1, outcomes.end(), [](const auto &o) { return o.judged; }))
    outcomes = analysis::supersede(facts(true));
  return outcomes;
}

// The newest runs of one superseding key (newest_runs.h): a run stored late is dated by when it
// was stored, so the run stored last after a clock reset is the newest. The newest by start is
// judged beside it until runs of two later ingests were stored after it: one ingest of old runs
// (a backfill) never passes a node whose newest run failed.
void keep_newest_of(const std::string &host, const std::vector<RunEntry> &runs,
                    const PointsOfRows &points_of, std::vector<std::int64_t> &kept,
                    NewestRuns &out) {
  const auto late = stored_late_flags(runs);
  std::size_t by_start = 0;
  const auto order = [&](std::size_t i) {
    return std::pair{late[i] ? runs[i]->second.stored_s : runs[i]->second.start_s,
                     std::get<0>(runs[i]->first)};
  };
  std::vector<std::size_t> newest_first(runs.size());
  for (std::size_t i = 0; i < runs.size(); ++i) {
    const auto &run = runs[i]->second;
    newest_first[i] = i;
    if (late[i]) {
      for (const auto row : run.rows)
        out.order_s[row] = run.stored_s;
    }
    if (std::pair{run.start_s, std::get<0>(runs[i]->first)} >
        std::pair{runs[by_start]->second.start_s, std::get<0>(runs[by_start]->first)})
      by_start = i;
  }
  std::sort(newest_first.begin(), newest_first.end(),
            [&](std::size_t a, std::size_t b) { return order(a) > order(b); });
  const auto newest = newest_first.front();
  const auto judged = judged_runs(runs, newest_first, points_of);
  for (std::size_t k = 0; k < newest_first.size(); ++k) {
    const auto i = newest_first[k];
    if (!judged[k].judged)
      continue;
    kept.insert(kept.end(), runs[i]->second.rows.begin(), runs[i]->second.rows.end());
    if (k > 0 && !judged[k].measured_again.empty())
      for (const auto row : runs[i]->second.rows)
        out.measured_again[row] = judged[k].measured_again;
    if (k > 0)
      out.kept_beside.emplace_back(
          host, fmt::format("run {} (started {}) is {}", std::get<0>(runs[i]->first),
                            runs[i]->second.start, analysis::kept_beside_text(judged[k])));
  }
  const auto &run = runs[newest]->second;
  if (newest == by_start)
    return;
  const auto &start_run = runs[by_start]->second;
  const bool both = ingests_after(start_run, runs) < 2;
  const auto at = std::find(newest_first.begin(), newest_first.end(), by_start);
  const bool judged_anyway = judged[static_cast<std::size_t>(at - newest_first.begin())].judged;
  if (both && !judged_anyway)
    kept.insert(kept.end(), start_run.rows.begin(), start_run.rows.end());
  out.dating_problems.emplace_back(
      host, fmt::format("run {} was stored after run {} but says it started before it ({} < {}): "
                        "its clock was behind, or it is an old run ingested late; it is dated by "
                        "when it was stored ({}){}",
                        std::get<0>(runs[newest]->first), std::get<0>(runs[by_start]->first),
                        run.start, start_run.start, run.stored,
                        both ? ", and both are judged until runs of two later ingests are stored"
                        : judged_anyway
                            ? ": runs of two later ingests were stored after the other, which is "
                              "judged for the points newer runs did not measure again"
                            : ": runs of two later ingests were stored after the other"));
}

// The points of runs' rows as the database stores them, the rows' counts added together.
PointsOfRows points_of_rows(Database &db) {
  return [&db](const std::vector<std::int64_t> &rows) {
    analysis::PointCounts points;
    for (const auto &row :
         db.query(fmt::format("SELECT points FROM runs WHERE id IN ({})", fmt::join(rows, ","))))
      analysis::add_points(
          points,
          analysis::parse_points_text(as_text(row.at(0))).value_or(analysis::PointCounts{}));
    return points;
  };
}

void keep_newest(const std::map<RunOfHost, Run> &runs, const PointsOfRows &points_of,
                 std::vector<std::int64_t> &kept, NewestRuns &out) {
  std::map<SupersedingKey, std::vector<RunEntry>> by_key;
  for (const auto &entry : runs)
    by_key[{std::get<1>(entry.first), std::get<2>(entry.first), std::get<3>(entry.first),
            entry.second.ranks, entry.second.machine}]
        .push_back(&entry);
  for (const auto &[key, of_key] : by_key)
    keep_newest_of(std::get<0>(key), of_key, points_of, kept, out);
}

} // namespace

NewestRuns newest_runs(Database &db) {
  NewestRuns out;
  std::vector<std::int64_t> kept;
  std::vector<OwnRow> own;
  std::vector<analysis::RunMachine> machines; // one per own row: its directory, host, machine
  db.for_each(
      std::string("SELECT ru.id, ru.source, ru.run_id, h.name, ru.suite, "
                  "COALESCE(ru.world_size, -1), ru.start_utc, ru.dir, ru.inventory, "
                  "ru.ingested_utc, ru.status, ru.incomplete, ru.plan_digest, "
                  "ru.points_digest, ru.points_planned FROM runs ru JOIN hosts h ON "
                  "h.id = ru.host_id "
                  "ORDER BY ru.id"),
      {}, [&](const Row &row) {
        const auto id = as_int(row[0]).value_or(0);
        if (as_text(row[1]) != "railgauge") {
          kept.push_back(id); // an import or a bare records.jsonl: never superseded
          out.order_s[id] = analysis::start_seconds(as_text(row[6]))
                                .value_or(analysis::start_seconds(as_text(row[9])).value_or(0));
          return;
        }
        const auto status = as_text(row[10]);
        const bool stored_whole = std::holds_alternative<std::nullptr_t>(row[11])
                                      ? status.empty() || status == run_field::kComplete
                                      : as_text(row[11]).empty();
        own.push_back({id, as_text(row[2]), as_text(row[3]), as_text(row[4]), as_text(row[6]),
                       as_text(row[9]), as_int(row[5]).value_or(-1),
                       status == run_field::kInterruptedStatus, stored_whole, as_text(row[12]),
                       // NULL: stored before schema 9; "": an older railgauge's records
                       as_text(row[13]).empty() ? std::nullopt : std::optional(as_text(row[13])),
                       as_int(row[14]).value_or(0)});
        machines.push_back(machine_of_row(as_text(row[7]), own.back().host, row[8]));
        // Two machines' runs stored from one path (each ran `db ingest .`) were one.
        machines.back().key = std::to_string(id);
      });
  const auto machine_of = analysis::machine_of_runs(machines);
  std::map<RunOfHost, Run> runs;
  std::map<std::string, std::pair<int, std::string>> ahead; // host -> runs, the first's text
  for (std::size_t i = 0; i < own.size(); ++i) {
    const auto &r = own[i];
    const auto [start_s, dating] = dated_start(r);
    out.order_s[r.id] = start_s;
    if (dating == Dating::none) {
      kept.push_back(r.id); // judged beside its host's newest, never taken for it
      continue;
    }
    if (dating == Dating::stored && ahead[r.host].first++ == 0)
      ahead[r.host].second = fmt::format("run {} says it started {}, after the history stored "
                                         "it ({})",
                                         r.run_id, r.start, r.stored);
    auto &run = runs[{r.run_id, r.host, r.suite, r.world}];
    if (run.rows.empty() || start_s < run.start_s) {
      run.start_s = start_s;
      run.start = r.start;
    }
    const auto stored_s = analysis::start_seconds(r.stored).value_or(0);
    if (run.rows.empty() || stored_s < run.stored_s) {
      run.stored_s = stored_s;
      run.stored = r.stored;
    }
    run.rows.push_back(r.id);
    run.stopped |= r.stopped;
    run.whole = run.whole && r.whole;
    if (run.plan.empty())
      run.plan = r.plan;
    run.points_unknown = run.points_unknown || !r.points_digest;
    run.planned += r.planned;
    run.points_digests.push_back(r.points_digest.value_or(""));
    ++run.ranks;
    run.machine = machine_of.at(machines[i].key);
  }
  for (const auto &[host, said] : ahead)
    out.dating_problems.emplace_back(
        host, fmt::format("{} run{} of the host said {} started more than an hour after the "
                          "history stored {} (the first: {}): its clock was ahead; they are "
                          "dated by when they were stored",
                          said.first, said.first == 1 ? "" : "s", said.first == 1 ? "it" : "they",
                          said.first == 1 ? "it" : "them", said.second));
  keep_newest(runs, points_of_rows(db), kept, out);
  std::sort(kept.begin(), kept.end());
  std::vector<analysis::RunMachine> newest_machines;
  for (std::size_t i = 0; i < own.size(); ++i)
    if (std::binary_search(kept.begin(), kept.end(), own[i].id)) {
      newest_machines.push_back(machines[i]);
      auto &gpus = out.gpus_of_host[own[i].host];
      for (const auto &uuid : machines[i].gpus)
        if (!uuid.empty())
          gpus.insert(uuid);
    }
  out.ids = kept.empty() ? "NULL" : fmt::format("{}", fmt::join(kept, ","));
  out.rows = std::move(kept);
  out.shared_host_names = analysis::shared_host_names(newest_machines);
  return out;
}

namespace {
// Two weekly burn-ins missed: past the cadence of any fleet that runs them.
constexpr double kNotRunLatelyS = 14 * 86400.0;

using NewestOfHost = std::map<std::string, std::pair<double, std::string>>; // (order, run id)

// The late hosts whose every GPU (by UUID, as their newest runs' inventories list them) is in the
// newest runs of one other host that ran later: a machine renamed, or its GPUs moved, whose old
// name would otherwise read as a retired host judged by its last run. A line each. UUIDs, not
// serials: VMs and boards without one share a placeholder serial.
std::vector<std::string> renamed_hosts(const std::set<std::string> &late,
                                       const NewestOfHost &newest_of, const NewestRuns &dating) {
  std::map<std::string, std::set<std::string>> hosts_of;
  for (const auto &[host, gpus] : dating.gpus_of_host)
    for (const auto &gpu : gpus)
      hosts_of[gpu].insert(host);
  std::vector<std::string> out;
  for (const auto &host : late) {
    const auto gpus = dating.gpus_of_host.find(host);
    if (gpus == dating.gpus_of_host.end() || gpus->second.empty())
      continue;
    std::set<std::string> holders = hosts_of[*gpus->second.begin()];
    for (const auto &gpu : gpus->second)
      std::erase_if(holders, [&](const std::string &h) { return !hosts_of[gpu].contains(h); });
    holders.erase(host);
    const auto &old_run = newest_of.at(host);
    std::erase_if(holders, [&](const std::string &h) {
      const auto it = newest_of.find(h);
      return it == newest_of.end() || it->second.first <= old_run.first;
    });
    if (holders.size() != 1)
      continue;
    const auto &now = *holders.begin();
    const auto n = gpus->second.size();
    out.push_back(fmt::format(
        "{}: its {} GPU{} (by UUID) {} now {}'s, whose newest run {} is {:.0f} days after its own "
        "last ({}): the machine renamed, or its GPUs moved; `railgauge db remove` takes the old "
        "name out",
        host, n, n == 1 ? "" : "s", n == 1 ? "is" : "are", now, newest_of.at(now).second,
        (newest_of.at(now).first - old_run.first) / 86400, old_run.second));
  }
  return out;
}

} // namespace

std::vector<std::string> hosts_not_run_lately(Database &db, const std::set<std::string> &wanted,
                                              const NewestRuns &dating) {
  NewestOfHost newest_of;
  double newest = 0;
  db.for_each("SELECT h.name, ru.id, ru.run_id FROM runs ru JOIN hosts h ON h.id = ru.host_id "
              "WHERE ru.id IN (" +
                  dating.ids + ")",
              {}, [&](const Row &row) {
                const auto order = dating.order_s.contains(as_int(row[1]).value_or(0))
                                       ? dating.order_s.at(as_int(row[1]).value_or(0))
                                       : 0;
                newest = std::max(newest, order);
                auto &of_host = newest_of[as_text(row[0])];
                if (order > of_host.first)
                  of_host = {order, as_text(row[2])};
              });
  std::set<std::string> late;
  std::pair<double, std::string> oldest{newest, ""};
  std::string oldest_host;
  for (const auto &[host, run] : newest_of) {
    if ((!wanted.empty() && !wanted.contains(host)) || run.first <= 0 ||
        newest - run.first <= kNotRunLatelyS)
      continue;
    late.insert(host);
    if (run.first < oldest.first) {
      oldest = run;
      oldest_host = host;
    }
  }
  if (late.empty())
    return {};
  std::vector<std::string> out = {
      fmt::format("{} host{} ran last more than 14 days before the history's newest run (the "
                  "oldest: {}, run {}, {:.0f} days before): each is judged by that run; `railgauge "
                  "db remove` takes a retired host out",
                  late.size(), late.size() == 1 ? "" : "s", oldest_host, oldest.second,
                  (newest - oldest.first) / 86400)};
  for (auto &line : renamed_hosts(late, newest_of, dating))
    out.push_back(std::move(line));
  return out;
}

} // namespace railgauge::history
