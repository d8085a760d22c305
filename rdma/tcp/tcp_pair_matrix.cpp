#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "harness/error.h"
#include "harness/store/store.h"
#include "rdma/pair_matrix.h"
#include "rdma/tcp/pair_report.h"
#include "rdma/tcp/tcp_benchmarks.h"
#include "rdma/tcp/tcp_point.h"

namespace railgauge::rdma {
namespace {

// The pair matrix over the TCP baseline: every rank is one endpoint; n-1 rounds of disjoint
// pairs (pair_matrix.h) run at once, each pair measuring latency and bandwidth, the results
// all-gathered so every rank judges the same matrix; then the suspects of bad pairs are
// re-tested against known-good ranks and named. Rank 0's record holds the matrix, the bad
// pairs and the findings.
class TcpPairMatrix final : public Benchmark {
public:
  std::string_view key() const override { return "rdma.tcp_pair_matrix"; }
  std::string_view description() const override {
    return "Every pair of ranks once (n-1 rounds of disjoint pairs) over TCP: latency and "
           "bandwidth matrix, bad pairs (ClusterKit: >2.1x min latency, <93% max bandwidth), "
           "suspects re-tested against known-good ranks and named";
  }
  std::vector<Axis> axes() const override {
    return {
        {"latency_size_bytes", AxisType::bytes, "Ping-pong message size", {std::int64_t{8}}, {}},
        {"bandwidth_size_bytes",
         AxisType::bytes,
         "Streaming message size",
         {std::int64_t{1048576}},
         {}},
        {"bind_address",
         AxisType::text,
         "The only address or interface each rank binds to (an interface name for "
         "several hosts, e.g. eth0)",
         {std::string("127.0.0.1")},
         {}},
        {"latency_factor",
         AxisType::real,
         "Bad: latency above this x the fleet minimum",
         {2.1},
         {}},
        {"bandwidth_fraction",
         AxisType::real,
         "Bad: bandwidth below this fraction of the fleet maximum",
         {0.93},
         {}}};
  }
  std::optional<std::string> supported(const RunContext &ctx, const Point &) const override {
    if (ctx.world_size() < 3 || ctx.store() == nullptr)
      return fmt::format("a pair matrix needs at least 3 ranks and a store (this run has {}); "
                         "launch with mpirun/srun -n N",
                         ctx.world_size());
    return std::nullopt;
  }
  Outcome run(RunContext &ctx, const Point &p) override;

private:
  int points_run_ = 0;
};

struct MatrixRun {
  RunContext &ctx;
  Store &store;
  std::string prefix;
  TcpPointSpec lat, bw;
  int pairs_tested = 0;

  // How long a round may take on the slowest rank: a healthy pair measures latency, then
  // bandwidth, each for the time budget; a pair whose peer is gone gives up after at most two
  // peer timeouts (the server's latency and bandwidth accepts). One more peer timeout of slack.
  Milliseconds round_timeout() const {
    const double s =
        2 * (ctx.measure_spec().time_budget_s + ctx.peer_timeout_s()) + ctx.peer_timeout_s();
    return Milliseconds(static_cast<long long>(s * 1000));
  }

  // Runs every round; returns every pair's result on every rank.
  std::vector<PairResult> run_rounds(const std::vector<Round> &rounds, const std::string &tag) {
    std::vector<PairResult> results;
    for (std::size_t r = 0; r < rounds.size(); ++r) {
      std::optional<PairReport> mine;
      for (const auto &[a, b] : rounds[r]) {
        if (a != ctx.rank() && b != ctx.rank())
          continue;
        const std::string pair_prefix = fmt::format("{}{}/{}-{}/", prefix, tag, a, b);
        ++pairs_tested;
        // The lower rank serves, the higher measures.
        if (ctx.rank() == a) {
          const std::atomic<bool> never{false};
          // The client measures bandwidth only after its latency point worked.
          if (!tcp_server(lat, store, pair_prefix + "lat/", never).contains("error"))
            tcp_server(bw, store, pair_prefix + "bw/", never);
          continue;
        }
        mine = PairReport{{{a, b}, 0.0, 0.0}, ""};
        try {
          const Outcome l = tcp_client(ctx, lat, store, pair_prefix + "lat/");
          const Outcome w = tcp_client(ctx, bw, store, pair_prefix + "bw/");
          if (l.status == Status::ok && w.status == Status::ok) {
            mine->result.latency_s = l.metrics.at("latency").at("p50_s").get<double>();
            mine->result.bandwidth_gbits_per_s =
                w.metrics.at("bandwidth_gbits_per_s").get<double>();
          } else {
            mine->error = l.reason.value_or("") + w.reason.value_or("");
          }
        } catch (const std::exception &e) {
          mine->error = e.what(); // a pair that fails is a bad pair, not a failed matrix
        }
      }
      std::vector<std::string> all;
      try {
        all = store_all_gather(store, fmt::format("{}{}/round{}", prefix, tag, r), ctx.rank(),
                               ctx.world_size(), encode_pair_report(mine), round_timeout());
      } catch (const StoreTimeout &e) {
        // A rank that does not reach the end of a round died or hangs: the matrix cannot go on
        // (its later pairs would wait for it too), and the run stops naming it.
        throw PeerLost(fmt::format("pair matrix, {}round {} of {}: {}",
                                   tag == "matrix" ? "" : tag + " ", r + 1, rounds.size(),
                                   e.what()));
      }
      for (std::size_t from = 0; from < all.size(); ++from)
        if (const auto report = decode_pair_report(all[from], static_cast<int>(from), rounds[r]))
          results.push_back(report->result);
    }
    return results;
  }
};

nlohmann::json to_json(const std::vector<PairResult> &results) {
  nlohmann::json j = nlohmann::json::array();
  for (const auto &r : results)
    j.push_back({{"ranks", {r.pair.first, r.pair.second}},
                 {"latency_p50_s", r.latency_s},
                 {"bandwidth_gbits_per_s", r.bandwidth_gbits_per_s}});
  return j;
}

Outcome TcpPairMatrix::run(RunContext &ctx, const Point &p) {
  MatrixRun m{ctx, *ctx.store(), fmt::format("pairs/{}/", points_run_++), {}, {}};
  m.lat.pattern = Pattern::latency;
  m.lat.size_bytes = static_cast<std::size_t>(p.integer("latency_size_bytes"));
  m.bw.pattern = Pattern::bandwidth;
  m.bw.size_bytes = static_cast<std::size_t>(p.integer("bandwidth_size_bytes"));
  m.lat.bind_address = m.bw.bind_address = p.text("bind_address");
  const PairThresholds t{p.real("latency_factor"), p.real("bandwidth_fraction")};

  // Every wait of the matrix is bounded by the run's peer timeout (--store-timeout).
  m.lat.timeout_s = m.bw.timeout_s = ctx.peer_timeout_s();
  const auto hosts =
      store_all_gather(m.store, m.prefix + "hosts", ctx.rank(), ctx.world_size(), ctx.host(),
                       Milliseconds(static_cast<long long>(ctx.peer_timeout_s() * 1000)));
  std::vector<FabricEndpoint> eps;
  for (int r = 0; r < ctx.world_size(); ++r)
    eps.push_back({r, 0, fmt::format("rank {} ({})", r, hosts[static_cast<std::size_t>(r)])});

  const auto results = m.run_rounds(fabric_rounds(eps, PairMode::rail_aligned), "matrix");
  const auto bad = find_bad_pairs(results, t);
  const auto plan = plan_isolation(eps, bad, PairMode::rail_aligned);
  const auto retests = m.run_rounds(pack_rounds(plan.retests), "retest");
  const auto ref = fleet_reference(results);
  const auto findings = conclude_isolation(eps, bad, plan, retests, ref, t);

  Outcome out;
  out.device = {{"interface_address", resolve_bind_address(m.lat.bind_address)}};
  out.metrics = {{"pairs_tested_by_this_rank", m.pairs_tested}};
  if (ctx.rank() != 0)
    return out;
  nlohmann::json bad_j = nlohmann::json::array(), findings_j = nlohmann::json::array();
  for (const auto &b : bad)
    bad_j.push_back({{"ranks", {b.pair.first, b.pair.second}}, {"why", b.why}});
  for (const auto &f : findings)
    findings_j.push_back({{"kind", f.kind}, {"ranks", f.endpoints}, {"text", f.text}});
  out.metrics["pairs"] = to_json(results);
  out.metrics["rounds"] = fabric_rounds(eps, PairMode::rail_aligned).size();
  out.metrics["fleet_min_latency_s"] = ref.min_latency_s;
  out.metrics["fleet_max_bandwidth_gbits_per_s"] = ref.max_bandwidth_gbits_per_s;
  out.metrics["bad_pairs"] = bad_j;
  out.metrics["retests"] = to_json(retests);
  out.metrics["findings"] = findings_j;
  return out;
}

} // namespace

std::unique_ptr<Benchmark> make_tcp_pair_matrix() { return std::make_unique<TcpPairMatrix>(); }

} // namespace railgauge::rdma
