#include "rdma/matrix_ledger.h"

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <map>
#include <set>

#include <fmt/format.h>

#include "harness/error.h"
#include "records/rdma_record.h"

namespace railgauge::rdma {
namespace fs = std::filesystem;

Axis cover_since_axis() {
  return {record::kCoverSince,
          AxisType::text,
          "With coverage_k: plan only the NIC cables no ledger of the runs in the same --out "
          "directory (and, with --db, of the fleet history) saw exercised within this long (90m, "
          "12h, 7d); empty: every link",
          {std::string("")},
          {}};
}

std::vector<std::string> ledgers_beside(const std::string &run_dir) {
  if (run_dir.empty())
    return {};
  fs::path run = fs::path(run_dir).lexically_normal();
  if (run.filename().empty())
    run = run.parent_path();
  if (run.filename().string().starts_with("rank-")) // <out>/<run>/rank-NNNNN
    run = run.parent_path();
  std::vector<std::string> out;
  std::error_code ec;
  for (const auto &entry : fs::directory_iterator(run.parent_path(), ec)) {
    if (!entry.is_directory(ec))
      continue;
    if (fs::exists(entry.path() / kLedgerFileName, ec))
      out.push_back((entry.path() / kLedgerFileName).string());
    for (const auto &rank_dir : fs::directory_iterator(entry.path(), ec))
      if (rank_dir.path().filename().string().starts_with("rank-") &&
          fs::exists(rank_dir.path() / kLedgerFileName, ec))
        out.push_back((rank_dir.path() / kLedgerFileName).string());
  }
  std::sort(out.begin(), out.end());
  return out;
}

CoverSince agree_cover_since(const std::string &cover_since, const std::string &run_dir,
                             Store &store, const std::string &key, int rank, Milliseconds timeout,
                             double now_s, const StoredLedger &stored) {
  CoverSince since;
  if (cover_since.empty())
    return since;
  const std::string where = fmt::format("-a {}", record::kCoverSince);
  since.active = true;
  since.text = cover_since;
  since.since_s = now_s - fabric::parse_duration_s(cover_since, where);
  nlohmann::json shared;
  if (rank == 0) {
    // Only each link's latest line since then matters to the plan: that is what goes out.
    std::map<std::string, double> latest;
    for (const auto &path : ledgers_beside(run_dir))
      for (const auto &line : fabric::read_ledger(path))
        if (line.time_s >= since.since_s)
          latest[line.link] = std::max(latest[line.link], line.time_s);
    try {
      if (stored) // its lines since then only (ledger_place.h)
        for (const auto &[link, time_s] : stored(since.since_s))
          latest[link] = std::max(latest[link], time_s);
    } catch (const std::exception &e) {
      // The other ranks hear why at once, rather than at their timeout.
      store.set(key, nlohmann::json{{"error", e.what()}}.dump());
      throw;
    }
    shared = {{"since_s", since.since_s}, {"links", latest}};
    store.set(key, shared.dump());
  } else {
    try {
      shared = nlohmann::json::parse(store.get(key, timeout));
    } catch (const StoreTimeout &e) {
      throw StoreTimeout(
          fmt::format("{}: rank 0 did not share the ledger's links: {}", where, e.what()),
          e.missing_keys());
    }
    if (shared.contains("error"))
      throw BackendError(fmt::format("{}: rank 0 could not read the fleet history's ledger: {}",
                                     where, shared["error"].get<std::string>()));
  }
  // Rank 0's clock decides, so that every rank plans the same rounds.
  since.since_s = shared.at("since_s").get<double>();
  for (const auto &[link, time_s] : shared.at("links").items())
    since.ledger.push_back({link, "nic_leaf", "", time_s.get<double>(), 0, 1, 0, ""});
  return since;
}

std::vector<fabric::LedgerLine> matrix_ledger_lines(const MatrixTopology &m,
                                                    const nlohmann::json &metrics, double time_s,
                                                    const std::string &via) {
  std::set<std::pair<int, int>> bad;
  for (const auto &b : metrics.value(record::kBadPairs, nlohmann::json::array()))
    bad.insert({b.at("endpoints").at(0).get<int>(), b.at("endpoints").at(1).get<int>()});
  std::map<std::pair<std::string, int>, fabric::LedgerLine> by_link; // (phase, link)
  const auto add = [&](const char *list, const std::string &phase, bool retest) {
    for (const auto &p : metrics.value(list, nlohmann::json::array())) {
      const std::pair<int, int> ends{p.at("endpoints").at(0).get<int>(),
                                     p.at("endpoints").at(1).get<int>()};
      // A retest is judged on its own: bad when it failed (its figures are in the findings).
      const bool is_bad = p.contains("error") || (!retest && bad.contains(ends));
      for (int e : {ends.first, ends.second}) {
        const int link = e >= 0 && e < static_cast<int>(m.nic_link.size()) ? m.nic_link[e] : -1;
        if (link < 0)
          continue;
        auto &line = by_link[{phase, link}];
        line.link = m.topology.links[link].label;
        line.kind = "nic_leaf";
        line.phase = phase;
        line.time_s = time_s;
        line.via = via;
        line.flows += 1;
        line.bad += is_bad;
      }
    }
  };
  add(record::kPairs, "matrix", false);
  add(record::kRetests, "retest", true);
  std::vector<fabric::LedgerLine> out;
  for (auto &[key, line] : by_link)
    out.push_back(std::move(line));
  return out;
}

void write_matrix_ledger(const std::string &run_dir, const MatrixTopology &m,
                         const nlohmann::json &metrics, const std::string &via) {
  if (run_dir.empty())
    return;
  const double now_s =
      std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
  const auto lines = matrix_ledger_lines(m, metrics, now_s, via);
  if (!lines.empty())
    fabric::append_ledger((fs::path(run_dir) / kLedgerFileName).string(), lines);
}

void agree_matrix_cover_since(RunContext &ctx, const Point &p, PairMatrixSpec &spec,
                              const SharedLedgerPlace &place) {
  const std::string text = p.text(record::kCoverSince);
  if (text.empty())
    return;
  if (spec.coverage_k <= 0)
    throw InputError(fmt::format("{}={} plans coverage rounds, and coverage_k is 0 (all pairs)",
                                 record::kCoverSince, text),
                     fmt::format("-a {}", record::kCoverSince),
                     "add -a coverage_k=2 (or another k), or drop cover_since");
  const double now_s =
      std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
  spec.cover_since = agree_cover_since(
      text, place ? place->run_dir : std::string(), *ctx.store(), spec.prefix + "cover_since",
      ctx.rank(), Milliseconds(static_cast<long long>(ctx.peer_timeout_s() * 1000)), now_s,
      place ? place->stored : StoredLedger());
}

void write_matrix_ledger(const RunContext &ctx, const Outcome &out, const MatrixEndpoints &eps,
                         const PairMatrixSpec &spec, const SharedLedgerPlace &place,
                         const std::string &via) {
  if (ctx.rank() != 0 || !place || place->run_dir.empty() || out.status != Status::ok)
    return;
  write_matrix_ledger(place->run_dir, matrix_topology(eps.endpoints, spec.topology), out.metrics,
                      via);
}

} // namespace railgauge::rdma
