#include "rdma/rdma_record.h"
#include "rdma/verbs_benchmark.h"

namespace railgauge::rdma {
namespace {

class WriteBw final : public VerbsBenchmark {
public:
  WriteBw() : VerbsBenchmark(Verb::write, false) {}
  std::string_view key() const override { return record::kWriteBw; }
  std::string_view description() const override {
    return "RC RDMA WRITE bandwidth vs message size: Gb/s, GB/s and message rate; QPs, post lists, "
           "CQ moderation, inline; uni- or bidirectional; data checked; port counter deltas";
  }
};

} // namespace

std::unique_ptr<Benchmark> make_write_bw() { return std::make_unique<WriteBw>(); }

} // namespace railgauge::rdma
