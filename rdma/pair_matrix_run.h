#pragma once
// A pair matrix run over any transport: rdma.tcp_pair_matrix (sockets, one endpoint per rank) and
// rdma.pair_matrix (verbs, one endpoint per NIC, several per rank). The rounds come from
// pair_matrix.h. Within a round a rank plays its pairs one after another in the round's order,
// which cannot deadlock: the lowest pair not yet done always has both its ranks at it; pairs of
// different ranks run at once. After each round the measuring sides' reports are all-gathered
// through the Store, so every rank judges the same matrix; then the suspects of bad pairs are
// re-tested against known-good endpoints and named. Every wait is bounded: a rank that does not
// finish a round stops the matrix with PeerLost naming it.
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "harness/benchmark.h"
#include "harness/record.h"
#include "harness/run_context.h"
#include "harness/store/store.h"
#include "rdma/coverage_rounds.h"
#include "rdma/ledger_place.h"
#include "rdma/pair_matrix.h"

namespace railgauge::rdma {

struct MatrixEndpoints {
  std::vector<FabricEndpoint> endpoints;
  std::vector<int> owner_rank; // the rank that holds each endpoint
  // Each endpoint's host and RDMA device ("" over TCP), written into the matrix record so that
  // check can name the part a finding is about.
  std::vector<std::string> host, device;
};

struct PairMatrixSpec {
  std::string prefix; // store keys: unique per point and equal on every rank
  PairMode mode = PairMode::rail_aligned;
  PairThresholds thresholds;
  // The longest one pair may take on its slowest side (both measurements, or the server's
  // waits for a peer that is gone): a round is bounded by this x its busiest rank's pairs.
  double pair_timeout_s = 0;
  // Coverage instead of all pairs (rdma/coverage_rounds.h): k > 0, over `topology` if given.
  int coverage_k = 0;
  std::string topology;
  // With coverage_k: only the NIC cables no ledger saw exercised lately (rdma/matrix_ledger.h).
  CoverSince cover_since;
};

// The axes every pair matrix has: latency_size_bytes, bandwidth_size_bytes, latency_factor and
// bandwidth_fraction (ClusterKit's defaults), coverage_k and topology, then the transport's
// `own`, then cover_since (matrix_ledger.h); and the thresholds they give.
std::vector<Axis> pair_matrix_axes(const std::vector<Axis> &own);
PairThresholds thresholds_of(const Point &p);
// coverage_k and topology into the spec; InputError for a k out of range.
void apply_coverage_axes(const Point &p, PairMatrixSpec &spec);

// What a measured pair gives the matrix: its latency point's p50 and its bandwidth point's Gb/s,
// read through the records' types; a BackendError where either point lacks its figure.
PairResult pair_figures(const Outcome &latency, const Outcome &bandwidth);

// One side of one pair, under its own store prefix. The measuring side (the owner of the pair's
// second endpoint) returns the pair's p50 latency and bandwidth, and throws when the pair fails
// (a failed pair is a bad pair, not a failed matrix); the serving side's return is not used.
using PairSideFn = std::function<PairResult(const EndpointPair &pair, bool measuring,
                                            const std::string &store_prefix)>;

// The matrix and the retests; every rank's Outcome counts its pairs, rank 0's holds the
// endpoints, every pair's figures, the bad pairs, the retests and the findings.
Outcome run_pair_matrix(RunContext &ctx, Store &store, const MatrixEndpoints &eps,
                        const PairMatrixSpec &spec, const PairSideFn &side);

// A pair matrix benchmark (rdma.tcp_pair_matrix, rdma.pair_matrix): where its coverage ledger
// goes, how many points it has run (each point's store prefix), and its waiver where the run has
// fewer than `min_ranks` ranks or no store, `launch_hint` saying how to launch it.
class PairMatrixBenchmark : public KeyedBenchmark {
public:
  std::optional<std::string> supported(const RunContext &ctx, const Point &) const override;

protected:
  PairMatrixBenchmark(std::string key, std::string description, SharedLedgerPlace ledger,
                      int min_ranks, std::string launch_hint)
      : KeyedBenchmark(std::move(key), std::move(description)), ledger_(std::move(ledger)),
        min_ranks_(min_ranks), launch_hint_(std::move(launch_hint)) {}

  SharedLedgerPlace ledger_; // where rank 0 writes the coverage ledger, and reads it
  int points_run_ = 0;

private:
  int min_ranks_;
  std::string launch_hint_;
};

} // namespace railgauge::rdma
