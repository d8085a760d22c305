#include <fmt/format.h>
#include <fmt/ranges.h>
#include <nlohmann/json.hpp>

#include "harness/benchmark.h"
#include "harness/error.h"
#include "harness/inventory/port_counters.h"
#include "harness/waiver.h"
#include "rdma/matrix_endpoints.h"
#include "rdma/matrix_ledger.h"
#include "rdma/pair_matrix_run.h"
#include "rdma/verbs_benchmark.h"
#include "rdma/verbs_point.h"
#include "records/rdma_record.h"

namespace railgauge::rdma {
namespace {

// The pair matrix over verbs (pair_matrix_run.h): every NIC of every rank is an endpoint (which
// ones: matrix_endpoints.h); each pair measures WRITE (or READ, SEND) latency and then bandwidth,
// the owner of the pair's second NIC measuring. Rank 0's record holds the matrix, the bad pairs
// and the findings; every rank's record holds the port counters of its NICs' pairs that moved.
class VerbsPairMatrix final : public PairMatrixBenchmark {
public:
  explicit VerbsPairMatrix(SharedLedgerPlace ledger)
      : PairMatrixBenchmark(
            record::kPairMatrix,
            "Every NIC pair across nodes once (rail-aligned or all-to-all rounds of disjoint "
            "pairs) over RC verbs: latency and bandwidth matrix, bad pairs (ClusterKit: >2.1x min "
            "latency, <93% max bandwidth), suspects re-tested against known-good NICs and named",
            std::move(ledger), 2,
            "launch one rank per node (or per GPU with nics=local_rank) with mpirun/srun") {}
  std::vector<Axis> axes() const override {
    std::vector<Axis> axes = pair_matrix_axes(
        {{record::kNics,
          AxisType::text,
          "all: every device with an ACTIVE port (one rank per node); local_rank: the device at "
          "the rank's index on its host (one rank per GPU); or a comma list of names",
          {std::string("all")},
          {}},
         {record::kNodeIdentity,
          AxisType::text,
          "host: ranks on one host are one node; rank: every rank stands for a node",
          {std::string("host")},
          {"host", "rank"}},
         {record::kPairing,
          AxisType::text,
          "rail_aligned: NIC i with NIC i of the other nodes; all_to_all: every NIC pair across "
          "nodes",
          {std::string("rail_aligned")},
          {"rail_aligned", "all_to_all"}},
         {record::kVerb,
          AxisType::text,
          "RC operation",
          {std::string("write")},
          {"write", "read", "send"}},
         {record::kQps, AxisType::integer, "Queue pairs for bandwidth", {std::int64_t{1}}, {}}});
    for (Axis &a : verbs_addressing_axes())
      axes.push_back(std::move(a));
    return axes;
  }
  Outcome run(RunContext &ctx, const Point &p) override;
};

Verb verb_of(const std::string &text) {
  return text == "read" ? Verb::read : text == "send" ? Verb::send : Verb::write;
}

// The counters that moved, without the many that did not.
nlohmann::json moved(const nlohmann::json &deltas) {
  if (deltas.is_object()) {
    nlohmann::json kept = nlohmann::json::object();
    for (const auto &[name, value] : deltas.items())
      if (nlohmann::json m = moved(value); !m.is_null())
        kept[name] = std::move(m);
    return kept.empty() ? nlohmann::json() : kept;
  }
  return deltas.is_number() && deltas.get<double>() == 0 ? nlohmann::json() : deltas;
}

// Every rank's usable NICs, gathered under `key`, and the matrix's endpoints planned from them.
NicMatrixPlan gather_nic_plan(RunContext &ctx, const Point &p, const VerbsPointSpec &base,
                              const std::string &key, Milliseconds peer_timeout) {
  RankNics mine{ctx.host(), {}, ""};
  std::string why_none;
  const auto devices = verbs_device_names(why_none);
  if (!devices.empty()) // else why_none already says why (no verbs build, ENOSYS, none found)
    mine.usable = active_devices(base.sysfs_root, devices, base.port, why_none);
  mine.why_none = why_none;
  const auto all = store_all_gather(*ctx.store(), key, ctx.rank(), ctx.world_size(),
                                    encode_rank_nics(mine), peer_timeout);
  std::vector<RankNics> ranks;
  for (std::size_t r = 0; r < all.size(); ++r)
    ranks.push_back(decode_rank_nics(all[r], static_cast<int>(r)));
  return plan_nic_matrix(ranks, p.text(record::kNics), p.text(record::kNodeIdentity) == "rank");
}

Outcome VerbsPairMatrix::run(RunContext &ctx, const Point &p) {
  PairMatrixSpec spec;
  spec.prefix = fmt::format("nic_pairs/{}/", points_run_++);
  spec.mode =
      p.text(record::kPairing) == "all_to_all" ? PairMode::all_to_all : PairMode::rail_aligned;
  spec.thresholds = thresholds_of(p);
  apply_coverage_axes(p, spec);
  agree_matrix_cover_since(ctx, p, spec, ledger_);
  // A pair's side waits at most a peer timeout for the other's connection data, then serves or
  // measures for at most two time budgets, twice (latency, then bandwidth).
  spec.pair_timeout_s = 2 * (2 * ctx.peer_timeout_s() + 2 * ctx.measure_spec().time_budget_s);
  Store &store = *ctx.store();
  const auto peer_timeout = Milliseconds(static_cast<long long>(ctx.peer_timeout_s() * 1000));

  VerbsPointSpec base;
  base.verb = verb_of(p.text(record::kVerb));
  base.mode = "ranks";
  apply_addressing_axes(p, base);
  base.qps = static_cast<int>(p.integer(record::kQps));
  base.inline_bytes = base.verb == Verb::read ? 0 : 64;

  const NicMatrixPlan plan = gather_nic_plan(ctx, p, base, spec.prefix + "nics", peer_timeout);
  if (plan.waive)
    return Outcome::waived(*plan.waive);
  if (!plan.problems.empty()) {
    Outcome failed;
    failed.status = Status::failed;
    failed.reason =
        fmt::format("ranks without the NICs the matrix needs: {}", fmt::join(plan.problems, "; "));
    return failed;
  }

  nlohmann::json this_rank_pairs = nlohmann::json::array();
  // This rank's own ports' counters summed over every pair it played, shaped like one point's
  // port_counter_deltas, so that the rules that judge rdma.* points (a link downed, symbol
  // errors, CNPs, ...) judge the matrix too; which NIC and which pair: this_rank_pairs.
  nlohmann::json own_counters = {{kCounterDeltasDevices, nlohmann::json::array()}};
  const auto side = [&](const EndpointPair &pair, bool measuring, const std::string &prefix) {
    const int me = measuring ? pair.second : pair.first;
    VerbsPointSpec lat = base, bw = base;
    lat.device = bw.device = plan.device[static_cast<std::size_t>(me)];
    lat.pattern = Pattern::latency;
    lat.size_bytes = static_cast<std::size_t>(p.integer(record::kLatencySizeBytes));
    bw.pattern = Pattern::bandwidth;
    bw.size_bytes = static_cast<std::size_t>(p.integer(record::kBandwidthSizeBytes));
    nlohmann::json detail = {
        {record::kEndpoints, {pair.first, pair.second}},
        {record::kRole, measuring ? record::kRoleClient : record::kRoleServer}};
    const auto note_counters = [&](const char *what, const Outcome &o) {
      if (o.metrics.contains(record::kPortCounterDeltas))
        add_counter_deltas(own_counters, o.metrics.at(record::kPortCounterDeltas));
      for (const char *name : {record::kPortCounterDeltas, record::kPeerPortCounterDeltas})
        if (o.metrics.contains(name))
          if (nlohmann::json m = moved(o.metrics.at(name)); !m.is_null())
            detail[fmt::format("{}_{}", what, name)] = std::move(m);
    };
    if (!measuring) {
      // Serve both; the bandwidth side fails fast when the client skipped it.
      try {
        note_counters("latency", run_verbs_side(ctx, lat, store, prefix + "lat/", false));
      } catch (const std::exception &) {
      }
      note_counters("bandwidth", run_verbs_side(ctx, bw, store, prefix + "bw/", false));
      this_rank_pairs.push_back(std::move(detail));
      return PairResult{};
    }
    Outcome l;
    try {
      l = run_verbs_side(ctx, lat, store, prefix + "lat/", true);
      if (l.status != Status::ok)
        throw BackendError("latency: " + l.reason.value_or(""));
    } catch (const std::exception &) {
      // The server's bandwidth side waits for this side's connection data: tell it now (the
      // form verbs_point.cpp reads as the client's failure).
      store.set(prefix + "bw/client_info", "error: the client's latency point failed");
      throw;
    }
    const Outcome w = run_verbs_side(ctx, bw, store, prefix + "bw/", true);
    if (w.status != Status::ok)
      throw BackendError("bandwidth: " + w.reason.value_or(""));
    note_counters("latency", l);
    note_counters("bandwidth", w);
    this_rank_pairs.push_back(std::move(detail));
    return pair_figures(l, w);
  };
  Outcome out = run_pair_matrix(ctx, store, plan.eps, spec, side);
  write_matrix_ledger(ctx, out, plan.eps, spec, ledger_,
                      fmt::format("{} {}", key(), p.text(record::kVerb)));
  out.metrics[record::kThisRankPairs] = this_rank_pairs;
  out.metrics[record::kPortCounterDeltas] = own_counters;
  return out;
}

} // namespace

std::unique_ptr<Benchmark> make_verbs_pair_matrix(SharedLedgerPlace ledger) {
  return std::make_unique<VerbsPairMatrix>(std::move(ledger));
}

} // namespace railgauge::rdma
