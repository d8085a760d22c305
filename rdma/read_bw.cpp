#include "rdma/rdma_record.h"
#include "rdma/verbs_benchmark.h"

namespace railgauge::rdma {
namespace {

class ReadBw final : public VerbsBenchmark {
public:
  ReadBw() : VerbsBenchmark(Verb::read, false) {}
  std::string_view key() const override { return record::kReadBw; }
  std::string_view description() const override {
    return "RC RDMA READ bandwidth vs message size: Gb/s, GB/s and message rate; QPs, post lists, "
           "CQ moderation, inline; uni- or bidirectional; data checked; port counter deltas";
  }
};

} // namespace

std::unique_ptr<Benchmark> make_read_bw() { return std::make_unique<ReadBw>(); }

} // namespace railgauge::rdma
