#include "analysis/history/history_inventory.h"

#include <algorithm>
#include <map>

#include "analysis/check/evaluate.h"
#include "analysis/history/history_builtins.h"
#include "analysis/run_set.h"
#include "harness/inventory/inventory_fields.h"
#include "harness/run_fields.h"

namespace railgauge::history {

using json = nlohmann::json;

InventoryJudgement judge_inventory_rules(Database &db, const check::RuleSet &rules,
                                         const std::vector<std::string> &hosts,
                                         const std::string &newest_ids) {
  InventoryJudgement out;
  if (std::none_of(rules.rules.begin(), rules.rules.end(),
                   [](const check::Rule &r) { return r.from_inventory(); }))
    return out;
  // Each newest run of railgauge's own (a bare records.jsonl too, whose inventory is none) as a
  // run directory holding only its run.json's host and inventory: an import's inventory
  // describes the machine that imported it, and `check` does not judge it either.
  analysis::RunSet runs;
  db.for_each(std::string("SELECT h.name, ru.dir, ru.inventory FROM runs ru JOIN hosts h ON "
                          "h.id = ru.host_id WHERE ru.source IN ('railgauge', '") +
                  kBareRecordsSource + "') AND ru.id IN (" + newest_ids + ")",
              {}, [&](const Row &row) {
                const auto host = as_text(row[0]);
                if (std::holds_alternative<std::nullptr_t>(row[2])) {
                  out.unknown.insert(host);
                  return;
                }
                analysis::LoadedRun run;
                run.dir = as_text(row[1]);
                run.manifest = json{{run_field::kHost, host}};
                if (const auto text = as_text(row[2]); !text.empty())
                  run.manifest[inventory_field::kInventory] = json::parse(text, nullptr, false);
                runs.runs.push_back(std::move(run));
              });
  // In the order `check` loads directories: a value two runs of a node report alike is the
  // first run's finding. Sorted here, not by SQL, whose text order is the server's collation.
  std::sort(runs.runs.begin(), runs.runs.end(),
            [](const auto &a, const auto &b) { return a.dir < b.dir; });
  auto result = check::evaluate_inventory_rules(rules, runs);
  for (auto &part : result.parts) {
    for (const auto &[rule, tally] : part.rules)
      out.judged.tallies[{part.key, rule}] = tally;
    for (auto &f : part.findings)
      out.judged.findings.emplace_back(part.key, std::move(f));
  }
  // A count's hosts are indices into its result's hosts: into `hosts` here.
  const auto own = result.hosts();
  std::map<std::string, std::size_t> index;
  for (std::size_t i = 0; i < hosts.size(); ++i)
    index.emplace(hosts[i], i);
  for (auto &c : result.unlisted_missing) {
    std::vector<bool> at(hosts.size());
    for (std::size_t i = 0; i < c.hosts.size() && i < own.size(); ++i)
      if (const auto it = index.find(own[i]); c.hosts[i] && it != index.end())
        at[it->second] = true;
    c.hosts = std::move(at);
    out.unlisted_missing.push_back(std::move(c));
  }
  return out;
}

} // namespace railgauge::history
