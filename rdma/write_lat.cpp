#include "rdma/rdma_record.h"
#include "rdma/verbs_benchmark.h"

namespace railgauge::rdma {
namespace {

class WriteLat final : public VerbsBenchmark {
public:
  WriteLat() : VerbsBenchmark(Verb::write, true) {}
  std::string_view key() const override { return record::kWriteLat; }
  std::string_view description() const override {
    return "RC RDMA WRITE latency vs message size: min/p50/p90/p99/p99.9/max and stdev per round "
           "trip; data checked; port counter deltas";
  }
};

} // namespace

std::unique_ptr<Benchmark> make_write_lat() { return std::make_unique<WriteLat>(); }

} // namespace railgauge::rdma
