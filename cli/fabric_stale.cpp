#include "cli/fabric_stale.h"

#include <fmt/format.h>

#include "cli/run_ingest.h"
#include "harness/error.h"
#include "rdma/fabric/coverage_ledger.h"

namespace railgauge {

StaleLinks stale_links(const rdma::fabric::Topology &t, const std::string &cover_since,
                       const std::vector<std::string> &ledger_files, const history::DbFlags &db,
                       double now_s) {
  namespace fabric = rdma::fabric;
  if (ledger_files.empty() && db.url.empty())
    throw InputError("--cover-since with no ledger to read", "--cover-since",
                     "give --ledger RUN_DIR/fabric_ledger.jsonl or --db URL (the fleet history)");
  const double since_s = now_s - fabric::parse_duration_s(cover_since, "--cover-since");
  std::vector<fabric::LedgerLine> ledger;
  for (const auto &file : ledger_files) {
    const auto lines = fabric::read_ledger(file);
    ledger.insert(ledger.end(), lines.begin(), lines.end());
  }
  if (!db.url.empty()) {
    // The fleet history keeps each link's lines; its latest time since then is what counts.
    auto flags = db;
    if (flags.url == "env") // the URL in $RAILGAUGE_DB, as run --db takes it
      flags.url.clear();
    const auto url = history::db_url(flags, "--db");
    for (const auto &[link, time_s] : stored_ledger(flags, url)(since_s)) {
      fabric::LedgerLine line;
      line.link = link, line.time_s = time_s;
      ledger.push_back(line);
    }
  }
  StaleLinks out;
  out.links = fabric::links_not_exercised_since(t, ledger, since_s);
  std::vector<char> stale(t.links.size(), 0);
  for (int l : out.links)
    stale[l] = 1;
  int cables = 0, uplinks = 0;
  for (std::size_t l = 0; l < t.links.size(); ++l) {
    const bool nic = t.links[l].kind == fabric::LinkKind::nic_leaf;
    (nic ? cables : uplinks) += 1;
    if (!stale[l])
      (nic ? out.fresh_nic_cables : out.fresh_uplinks) += 1;
  }
  // A pair matrix traces no ECMP path, so its ledger names NIC cables only: an uplink is fresh
  // only where a traced acceptance run wrote it.
  out.how = fmt::format("cover-since {}: {} of {} NIC cables and {} of {} uplinks exercised since "
                        "then; {} links planned",
                        cover_since, out.fresh_nic_cables, cables, out.fresh_uplinks, uplinks,
                        out.links.size());
  if (uplinks > 0 && out.fresh_uplinks == 0)
    out.how += " (no ledger names an uplink: a pair matrix traces none)";
  return out;
}

} // namespace railgauge
