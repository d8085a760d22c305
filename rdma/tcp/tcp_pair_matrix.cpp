#include <atomic>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "harness/device_fields.h"
#include "harness/error.h"
#include "harness/store/store.h"
#include "harness/waiver.h"
#include "rdma/matrix_ledger.h"
#include "rdma/pair_matrix_run.h"
#include "rdma/tcp/tcp_benchmarks.h"
#include "rdma/tcp/tcp_point.h"
#include "records/rdma_record.h"

namespace railgauge::rdma {
namespace {

constexpr const char *kBandwidthFollows = "bandwidth";

// The pair matrix over the TCP baseline (pair_matrix_run.h): every rank is one endpoint, each
// pair measures latency and bandwidth. Rank 0's record holds the matrix, the bad pairs and the
// findings.
class TcpPairMatrix final : public PairMatrixBenchmark {
public:
  explicit TcpPairMatrix(SharedLedgerPlace ledger)
      : PairMatrixBenchmark(
            record::kTcpPairMatrix,
            "Every pair of ranks once (n-1 rounds of disjoint pairs) over TCP: latency and "
            "bandwidth matrix, bad pairs (ClusterKit: >2.1x min latency, <93% max bandwidth), "
            "suspects re-tested against known-good ranks and named",
            std::move(ledger), 3, "launch with mpirun/srun -n N") {}
  std::vector<Axis> axes() const override {
    return pair_matrix_axes({{record::kBindAddress,
                              AxisType::text,
                              "The only address or interface each rank binds to (an interface "
                              "name for several hosts, e.g. eth0)",
                              {std::string("127.0.0.1")},
                              {}}});
  }
  Outcome run(RunContext &ctx, const Point &p) override;
};

Outcome TcpPairMatrix::run(RunContext &ctx, const Point &p) {
  TcpPointSpec lat, bw;
  lat.pattern = Pattern::latency;
  lat.size_bytes = static_cast<std::size_t>(p.integer(record::kLatencySizeBytes));
  bw.pattern = Pattern::bandwidth;
  bw.size_bytes = static_cast<std::size_t>(p.integer(record::kBandwidthSizeBytes));
  lat.bind_address = bw.bind_address = p.text(record::kBindAddress);
  // Every wait of the matrix is bounded by the run's peer timeout (--store-timeout).
  lat.timeout_s = bw.timeout_s = ctx.peer_timeout_s();

  PairMatrixSpec spec;
  spec.prefix = fmt::format("pairs/{}/", points_run_++);
  spec.thresholds = thresholds_of(p);
  apply_coverage_axes(p, spec);
  agree_matrix_cover_since(ctx, p, spec, ledger_);
  // A healthy pair measures latency, then bandwidth, each for the time budget; a pair whose peer
  // is gone gives up after at most two peer timeouts (the server's latency and bandwidth accepts).
  spec.pair_timeout_s = 2 * (ctx.measure_spec().time_budget_s + ctx.peer_timeout_s());
  Store &store = *ctx.store();
  const Milliseconds peer_timeout(static_cast<long long>(ctx.peer_timeout_s() * 1000));
  const auto hosts = store_all_gather(store, spec.prefix + "hosts", ctx.rank(), ctx.world_size(),
                                      ctx.host(), peer_timeout);
  MatrixEndpoints eps;
  for (int r = 0; r < ctx.world_size(); ++r) {
    eps.endpoints.push_back(
        {r, 0, fmt::format("rank {} ({})", r, hosts[static_cast<std::size_t>(r)])});
    eps.owner_rank.push_back(r);
    eps.host.push_back(hosts[static_cast<std::size_t>(r)]);
    eps.device.emplace_back();
  }

  // The lower rank serves, the higher measures. The client says whether bandwidth follows
  // (kBandwidthFollows, or "error: why") so that a server whose client failed at latency does not
  // wait a peer timeout for a bandwidth connection that will never come.
  const auto side = [&](const EndpointPair &, bool measuring, const std::string &prefix) {
    const std::string next_key = prefix + "after_latency";
    if (!measuring) {
      const std::atomic<bool> never{false};
      if (!tcp_server(lat, store, prefix + "lat/", never).contains("error") &&
          store.get(next_key, peer_timeout) == kBandwidthFollows)
        tcp_server(bw, store, prefix + "bw/", never);
      return PairResult{};
    }
    Outcome l;
    try {
      l = tcp_client(ctx, lat, store, prefix + "lat/");
    } catch (const std::exception &e) {
      store.set(next_key, std::string("error: ") + e.what());
      throw;
    }
    if (l.status != Status::ok) {
      store.set(next_key, "error: " + l.reason.value_or("latency failed"));
      throw BackendError(l.reason.value_or("latency failed"));
    }
    store.set(next_key, kBandwidthFollows);
    const Outcome w = tcp_client(ctx, bw, store, prefix + "bw/");
    if (w.status != Status::ok)
      throw BackendError(w.reason.value_or("bandwidth failed"));
    return pair_figures(l, w);
  };
  Outcome out = run_pair_matrix(ctx, store, eps, spec, side);
  write_matrix_ledger(ctx, out, eps, spec, ledger_, std::string(key()));
  out.device = {{device::kInterfaceAddress, resolve_bind_address(lat.bind_address)}};
  return out;
}

} // namespace

std::unique_ptr<Benchmark> make_tcp_pair_matrix(SharedLedgerPlace ledger) {
  return std::make_unique<TcpPairMatrix>(std::move(ledger));
}

} // namespace railgauge::rdma
