#include "rdma/pair_matrix_run.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "harness/error.h"
#include "harness/waiver.h"
#include "rdma/coverage_rounds.h"
#include "rdma/matrix_ledger.h"
#include "rdma/pair_report.h"
#include "records/pair_matrix_fields.h"
#include "records/rdma_point_fields.h"
#include "records/rdma_record.h"

namespace railgauge::rdma {
namespace {

class MatrixRun {
public:
  MatrixRun(RunContext &ctx, Store &store, const MatrixEndpoints &eps, const PairMatrixSpec &spec,
            const PairSideFn &side)
      : ctx_(ctx), store_(store), eps_(eps), spec_(spec), side_(side) {}

  // Runs every round; returns every pair's report on every rank.
  std::vector<PairReport> run_rounds(const std::vector<Round> &rounds, const std::string &tag) {
    std::vector<PairReport> reports;
    for (std::size_t r = 0; r < rounds.size(); ++r) {
      std::vector<std::string> all;
      // A rank that does not reach the end of a round died or hangs: the matrix cannot go on
      // (its later pairs would wait for it too), and the run stops naming it.
      const auto lost = [&](const std::exception &e) {
        return PeerLost(fmt::format("pair matrix, {}round {} of {}: {}",
                                    tag == "matrix" ? "" : tag + " ", r + 1, rounds.size(),
                                    e.what()));
      };
      try {
        all = store_all_gather(store_, fmt::format("{}{}/round{}", spec_.prefix, tag, r),
                               ctx_.rank(), ctx_.world_size(),
                               encode_pair_reports(play(rounds[r], tag)), round_timeout(rounds[r]));
      } catch (const StoreTimeout &e) {
        throw lost(e);
      } catch (const PeerLost &e) { // the store saw the rank go
        throw lost(e);
      }
      std::set<EndpointPair> reported;
      for (std::size_t from = 0; from < all.size(); ++from)
        for (PairReport &report :
             decode_pair_reports(all[from], static_cast<int>(from), rounds[r], eps_.owner_rank)) {
          reported.insert(report.result.pair);
          reports.push_back(std::move(report));
        }
      // A pair its measuring rank left out is a bad pair, never one that silently vanishes.
      for (const EndpointPair &pair : rounds[r])
        if (!reported.contains(pair))
          reports.push_back({{pair, 0.0, 0.0},
                             fmt::format("rank {} (its measuring side) reported nothing for it",
                                         owner(pair.second))});
    }
    return reports;
  }

  int pairs_played() const { return pairs_played_; }

private:
  int owner(int endpoint) const { return eps_.owner_rank[static_cast<std::size_t>(endpoint)]; }

  // This rank's pairs of the round, in the round's order; the reports of those it measured.
  std::vector<PairReport> play(const Round &round, const std::string &tag) {
    std::vector<PairReport> mine;
    for (const EndpointPair &pair : round) {
      const bool measuring = owner(pair.second) == ctx_.rank();
      if (!measuring && owner(pair.first) != ctx_.rank())
        continue;
      ++pairs_played_;
      const std::string prefix =
          fmt::format("{}{}/{}-{}/", spec_.prefix, tag, pair.first, pair.second);
      if (!measuring) {
        try {
          side_(pair, false, prefix);
        } catch (const std::exception &) {
          // The measuring side reports the pair's failure (it sees it too, or times out).
        }
        continue;
      }
      PairReport report{{pair, 0.0, 0.0}, ""};
      try {
        const PairResult got = side_(pair, true, prefix);
        // A figure that is not a positive number would make every rank's decoding fail.
        if (!(std::isfinite(got.latency_s) && got.latency_s > 0 &&
              std::isfinite(got.bandwidth_gbits_per_s) && got.bandwidth_gbits_per_s > 0))
          throw BackendError(fmt::format("the pair measured latency {} s, bandwidth {} Gb/s",
                                         got.latency_s, got.bandwidth_gbits_per_s));
        report.result.latency_s = got.latency_s;
        report.result.bandwidth_gbits_per_s = got.bandwidth_gbits_per_s;
      } catch (const std::exception &e) {
        report.error = e.what(); // a pair that fails is a bad pair, not a failed matrix
      }
      mine.push_back(std::move(report));
    }
    return mine;
  }

  // The busiest rank of the round plays its pairs one after another; one more peer timeout of
  // slack for the all-gather itself.
  Milliseconds round_timeout(const Round &round) const {
    std::map<int, int> pairs_of_rank;
    int busiest = 0;
    for (const auto &[a, b] : round) {
      busiest = std::max(busiest, ++pairs_of_rank[owner(a)]);
      busiest = std::max(busiest, ++pairs_of_rank[owner(b)]);
    }
    const double s = busiest * spec_.pair_timeout_s + ctx_.peer_timeout_s();
    return Milliseconds(static_cast<long long>(s * 1000));
  }

  RunContext &ctx_;
  Store &store_;
  const MatrixEndpoints &eps_;
  const PairMatrixSpec &spec_;
  const PairSideFn &side_;
  int pairs_played_ = 0;
};

std::vector<PairResult> results_of(const std::vector<PairReport> &reports) {
  std::vector<PairResult> results;
  for (const auto &r : reports)
    results.push_back(r.result);
  return results;
}

std::vector<record::MatrixPairFields> pair_fields(const std::vector<PairReport> &reports) {
  std::vector<record::MatrixPairFields> pairs;
  for (const auto &r : reports)
    pairs.push_back({r.result.pair, r.result.latency_s, r.result.bandwidth_gbits_per_s,
                     r.error.empty() ? std::nullopt : std::optional(r.error)});
  return pairs;
}

std::vector<std::string> labels_of(const MatrixEndpoints &eps, const std::vector<int> &which) {
  std::vector<std::string> labels;
  for (int e : which)
    labels.push_back(eps.endpoints[static_cast<std::size_t>(e)].label);
  return labels;
}

} // namespace

std::vector<Axis> pair_matrix_axes(const std::vector<Axis> &own) {
  std::vector<Axis> axes = {
      {record::kLatencySizeBytes, AxisType::bytes, "Ping-pong message size", {std::int64_t{8}}, {}},
      {record::kBandwidthSizeBytes,
       AxisType::bytes,
       "Streaming message size",
       {std::int64_t{1048576}},
       {}},
      {record::kLatencyFactor,
       AxisType::real,
       "Bad: latency above this x the fleet minimum",
       {2.1},
       {}},
      {record::kBandwidthFraction,
       AxisType::real,
       "Bad: bandwidth below this fraction of the fleet maximum",
       {0.93},
       {}},
      {record::kCoverageK,
       AxisType::integer,
       "0: all pairs (n - 1 rounds); k > 0: rounds from the coverage planner that cross every "
       "NIC cable and uplink at least k times (docs/rdma.md, Fabric acceptance at scale)",
       {std::int64_t{0}},
       {}},
      {record::kTopology,
       AxisType::text,
       "With coverage_k: the fabric's topology (YAML, ibnetdiscover output or an lldpctl "
       "directory), the same path on every node; empty: each rail one leaf",
       {std::string("")},
       {}}};
  axes.insert(axes.end(), own.begin(), own.end());
  axes.push_back(cover_since_axis());
  return axes;
}

void apply_coverage_axes(const Point &p, PairMatrixSpec &spec) {
  spec.coverage_k = static_cast<int>(p.integer(record::kCoverageK));
  spec.topology = p.text(record::kTopology);
  if (spec.coverage_k < 0 || spec.coverage_k > 16)
    throw InputError(fmt::format("coverage_k {} is out of range", spec.coverage_k), "-a coverage_k",
                     "give 0 (all pairs) or a k from 1 to 16");
  // All pairs read no topology: a path given there would be ignored without a word.
  if (spec.coverage_k == 0 && !spec.topology.empty())
    throw InputError(fmt::format("topology={} plans coverage rounds, and coverage_k is 0 (all "
                                 "pairs)",
                                 spec.topology),
                     "-a topology", "add -a coverage_k=2 (or another k), or drop topology");
}

PairThresholds thresholds_of(const Point &p) {
  return {p.real(record::kLatencyFactor), p.real(record::kBandwidthFraction)};
}

Outcome run_pair_matrix(RunContext &ctx, Store &store, const MatrixEndpoints &eps,
                        const PairMatrixSpec &spec, const PairSideFn &side) {
  MatrixRun m(ctx, store, eps, spec, side);
  CoverageRounds coverage;
  if (spec.coverage_k > 0) // the same plan on every rank: the same seed, the same topology
    coverage = coverage_rounds(eps.endpoints, spec.topology, spec.coverage_k, 1, spec.cover_since);
  const auto rounds =
      spec.coverage_k > 0 ? coverage.rounds : fabric_rounds(eps.endpoints, spec.mode);
  const auto matrix = m.run_rounds(rounds, "matrix");
  const auto results = results_of(matrix);
  const auto bad = find_bad_pairs(results, spec.thresholds);
  const auto plan = plan_isolation(eps.endpoints, bad, spec.mode);
  const auto retests = m.run_rounds(pack_rounds(plan.retests, eps.endpoints), "retest");
  const auto ref = fleet_reference(results);
  auto findings =
      conclude_isolation(eps.endpoints, bad, plan, results_of(retests), ref, spec.thresholds);
  if (auto fleet = fleet_finding(results.size(), bad.size()))
    findings.insert(findings.begin(), std::move(*fleet));

  Outcome out;
  out.metrics = {{record::kPairsPlayedByThisRank, m.pairs_played()}};
  // A matrix of no pairs measured nothing, so it is never `ok` (a topology whose names were not
  // the ranks' once planned no round, and the matrix passed). Every rank planned the same.
  if (rounds.empty()) {
    const bool all_fresh = spec.coverage_k > 0 && spec.cover_since.active;
    out.status = all_fresh ? Status::waived : Status::failed;
    out.reason = all_fresh ? fmt::format("nothing to cover: {}", coverage.how)
                           : fmt::format("the matrix planned no pair of its {} endpoints{}",
                                         eps.endpoints.size(),
                                         coverage.how.empty() ? "" : ": " + coverage.how);
  }
  if (ctx.rank() != 0)
    return out;
  record::PairMatrixFields fields;
  for (std::size_t i = 0; i < eps.endpoints.size(); ++i) {
    const auto at = [i](const std::vector<std::string> &v) -> std::optional<std::string> {
      if (i >= v.size() || v[i].empty())
        return std::nullopt;
      return v[i];
    };
    fields.endpoints.push_back({static_cast<record::MatrixEndpointIndex>(i), eps.owner_rank[i],
                                eps.endpoints[i].node, eps.endpoints[i].rail,
                                eps.endpoints[i].label, at(eps.host), at(eps.device)});
  }
  for (const auto &b : bad)
    fields.bad_pairs.push_back({b.pair, labels_of(eps, {b.pair.first, b.pair.second}), b.why});
  for (const auto &f : findings)
    fields.findings.push_back(
        {f.kind, {f.endpoints.begin(), f.endpoints.end()}, labels_of(eps, f.endpoints), f.text});
  fields.pairing = spec.mode == PairMode::rail_aligned ? "rail_aligned" : "all_to_all";
  fields.rounds = rounds.size();
  if (spec.coverage_k > 0) {
    fields.pairing = "coverage";
    fields.coverage_plan = coverage.how;
    fields.coverage_missing = coverage.missing;
  }
  fields.pairs = pair_fields(matrix);
  fields.fleet_min_latency_s = ref.min_latency_s;
  fields.fleet_max_bandwidth_gbits_per_s = ref.max_bandwidth_gbits_per_s;
  fields.retests = pair_fields(retests);
  fields.write(out.metrics);
  return out;
}

std::optional<std::string> PairMatrixBenchmark::supported(const RunContext &ctx,
                                                          const Point &) const {
  if (ctx.world_size() < min_ranks_ || ctx.store() == nullptr)
    return not_applicable(
        fmt::format("a pair matrix needs at least {} ranks and a store (this run has {}); {}",
                    min_ranks_, ctx.world_size(), launch_hint_));
  return std::nullopt;
}

PairResult pair_figures(const Outcome &latency, const Outcome &bandwidth) {
  const auto l = record::LatencyFields::read(latency.metrics, record::kLatency);
  const auto b = record::BandwidthFields::read(bandwidth.metrics);
  if (!l || !l->p50_s)
    throw BackendError(
        fmt::format("the pair's latency point has no {}.{}", record::kLatency, record::kP50S));
  if (!b || !b->gbits_per_s)
    throw BackendError(
        fmt::format("the pair's bandwidth point has no {}", record::kBandwidthGbitsPerS));
  return PairResult{{}, *l->p50_s, *b->gbits_per_s};
}

} // namespace railgauge::rdma
