#pragma once
// The RC verbs benchmarks (rdma.write_bw, rdma.read_lat, ...): one class told apart by its verb
// and whether it measures latency, with these axes and this run(): the point is built into a
// VerbsPointSpec and run by the verbs backend (verbs_point.h). Each key is made below.
#include <memory>
#include <string>
#include <string_view>
#include <utility>

#include "harness/benchmark.h"
#include "rdma/ledger_place.h"
#include "rdma/verbs_point.h"

namespace railgauge::rdma {

class VerbsBenchmark final : public KeyedBenchmark {
public:
  VerbsBenchmark(Verb verb, bool latency, std::string_view key, std::string description)
      : KeyedBenchmark(std::string(key), std::move(description)), verb_(verb), latency_(latency) {}
  std::vector<Axis> axes() const override;
  std::optional<std::string> supported(const RunContext &ctx, const Point &point) const override;
  Outcome run(RunContext &ctx, const Point &point) override;

private:
  VerbsPointSpec spec_of(const Point &point) const;
  Verb verb_;
  bool latency_;
  int points_run_ = 0; // store keys: the same sequence on every rank
};

// Where a verbs point runs and how it is addressed: port, gid_index, traffic_class and
// service_level, shared by the per-NIC benchmarks and rdma.pair_matrix, and the spec fields they
// set.
std::vector<Axis> verbs_addressing_axes();
void apply_addressing_axes(const Point &point, VerbsPointSpec &spec);

// The bandwidth tests' `memory` axis: "host" -> -1, "gpu:N" -> N; InputError otherwise.
int parse_rdma_memory(const std::string &text);

std::unique_ptr<Benchmark> make_write_bw();
std::unique_ptr<Benchmark> make_read_bw();
std::unique_ptr<Benchmark> make_send_bw();
std::unique_ptr<Benchmark> make_write_lat();
std::unique_ptr<Benchmark> make_read_lat();
std::unique_ptr<Benchmark> make_send_lat();
// rdma.pair_matrix: every NIC pair across nodes over verbs, bad pairs, isolation. The run
// directory, once made, is where rank 0 writes the coverage ledger (rdma/matrix_ledger.h).
std::unique_ptr<Benchmark> make_verbs_pair_matrix(SharedLedgerPlace ledger = {});

} // namespace railgauge::rdma
