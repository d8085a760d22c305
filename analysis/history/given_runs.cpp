#include "analysis/history/given_runs.h"

#include <map>
#include <set>
#include <utility>

#include <fmt/format.h>

namespace railgauge::history {

std::vector<std::string> runs_not_newest(Database &db, const NewestRuns &dating,
                                         const std::vector<JudgedRun> &given) {
  // By host and suite, the newest runs' ids (a suite's newest may be several: one per world).
  std::map<std::pair<std::string, std::string>, std::set<std::string>> newest;
  db.for_each("SELECT h.name, ru.suite, ru.run_id FROM runs ru JOIN hosts h ON h.id = ru.host_id "
              "WHERE ru.id IN (" +
                  dating.ids + ")",
              {}, [&](const Row &row) {
                newest[{as_text(row[0]), as_text(row[1])}].insert(as_text(row[2]));
              });
  std::vector<std::string> lines;
  std::set<std::pair<std::string, std::string>> said;
  for (const auto &run : given) {
    if (!said.emplace(run.host, run.run_id).second)
      continue; // a run's ranks are one run
    std::set<std::string> suites;
    db.for_each("SELECT ru.suite FROM runs ru JOIN hosts h ON h.id = ru.host_id WHERE h.name = ? "
                "AND ru.run_id = ?",
                {run.host, run.run_id}, [&](const Row &row) { suites.insert(as_text(row[0])); });
    for (const auto &suite : suites) {
      const auto it = newest.find({run.host, suite});
      if (it == newest.end() || it->second.contains(run.run_id))
        continue;
      lines.push_back(fmt::format(
          "{}: run {} is not the newest run of {} in {}{}: {} is, and the history's rules "
          "(history-step, history-drift, history-repeat-offender) judged that one; `check "
          "--history {}` with no run judges every host as it stands",
          run.dir, run.run_id, run.host, db.name(),
          suite.empty() ? "" : fmt::format(" (suite {})", suite), fmt::join(it->second, ", "),
          db.name()));
    }
  }
  return lines;
}

} // namespace railgauge::history
