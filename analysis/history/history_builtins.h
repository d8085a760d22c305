#pragma once
// The built-in rules of `check` (analysis/check/evaluate.h) over the fleet history's newest runs
// (history_fleet.h), from what the database keeps: run-complete from a run's stored status,
// nothing-judged from the records each node holds, and the rules the database cannot answer
// named in the result.
#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "analysis/check/check_result.h"
#include "analysis/check/rules.h"
#include "analysis/check/unjudged_nodes.h"
#include "analysis/history/database.h"

namespace railgauge::history {

// The source of a bare records.jsonl's run (newest_runs.h): never superseded.
inline constexpr const char *kBareRecordsSource = "records";

// One newest run as the database holds it.
struct StoredRun {
  std::string host, dir, status, run_id;
  bool imported = false;
  // run-complete's reasons as `check` gave them when the run was ingested ("" whole); none for a
  // run ingested before schema version 4, which is judged by its status alone.
  std::optional<std::string> incomplete;
  std::optional<std::int64_t> world_size, world_rank;
  std::vector<std::pair<long long, std::string>> lost; // the ranks it names as lost (rank, host)

  // Stopped by a rank lost on another node or by a signal from outside (a job's time limit), as
  // ingest judged it (check::stopped_from_outside): run-complete warns, and the point the loss
  // broke or the signal cut is not judged.
  bool stopped_from_outside() const;
  bool is_cut_point(const Record &r) const;
  // record-status's detail of that point, as check words it.
  std::string cut_point_detail(const std::string &reason) const;
};

// A row of `SELECT ru.id, h.name, ru.dir, ru.source, ru.status, ru.run_id, ru.incomplete,
// ru.world_size, ru.world_rank, ru.inventory, ru.lost_ranks`.
StoredRun stored_run(const Row &row);

// run-complete's findings, by node, as over directories: a run not whole by its run.json (its
// status, planned points, counts; its files not read whole), and a run of several ranks of
// which fewer ranks are stored than it had. A run written by hand states none; an import is
// whole by construction.
std::vector<std::pair<check::PartKey, check::Finding>>
incomplete_runs(const check::RuleSet &rules, const std::map<std::int64_t, StoredRun> &runs);

// nothing-judged's findings into `result`, from the records each node holds (by host) and the
// parts as judged by then. A part judged against its own past only is not a node the profile
// read; a history finding still raises the node to its level.
void add_nothing_judged(const check::RuleSet &rules,
                        const std::map<std::string, check::HeldRecords> &held,
                        check::CheckResult &result);

// The paths the ingests could not read (the unreadable table, schema.h) into result.unreadable
// at the rules' unreadable_inputs level, in the order ingest met them: in the fleet's verdict, as
// `check` over the directories counts them, and no node's, whose host is unknown.
void add_unreadable(Database &db, const check::RuleSet &rules, check::CheckResult &result);

// The rules the database cannot answer for railgauge's own runs: the inventory probes, where a
// newest run was stored before the database kept inventories (its host in `inventory_unknown`),
// into result.not_judged and, never a silent pass, a warn finding on each such node for each;
// run-complete in part too when a newest run was stored before the database kept its
// completeness.
void name_rules_not_judged(const check::RuleSet &rules,
                           const std::set<std::string> &inventory_unknown,
                           bool completeness_unknown, check::CheckResult &result);

} // namespace railgauge::history
