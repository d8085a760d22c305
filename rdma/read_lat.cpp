#include "rdma/rdma_record.h"
#include "rdma/verbs_benchmark.h"

namespace railgauge::rdma {
namespace {

class ReadLat final : public VerbsBenchmark {
public:
  ReadLat() : VerbsBenchmark(Verb::read, true) {}
  std::string_view key() const override { return record::kReadLat; }
  std::string_view description() const override {
    return "RC RDMA READ latency (round trip) vs message size: min/p50/p90/p99/p99.9/max and "
           "stdev; data checked; port counter deltas";
  }
};

} // namespace

std::unique_ptr<Benchmark> make_read_lat() { return std::make_unique<ReadLat>(); }

} // namespace railgauge::rdma
