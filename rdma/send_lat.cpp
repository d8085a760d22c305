#include "rdma/rdma_record.h"
#include "rdma/verbs_benchmark.h"

namespace railgauge::rdma {
namespace {

class SendLat final : public VerbsBenchmark {
public:
  SendLat() : VerbsBenchmark(Verb::send, true) {}
  std::string_view key() const override { return record::kSendLat; }
  std::string_view description() const override {
    return "RC RDMA SEND latency vs message size: min/p50/p90/p99/p99.9/max and stdev per round "
           "trip; data checked; port counter deltas";
  }
};

} // namespace

std::unique_ptr<Benchmark> make_send_lat() { return std::make_unique<SendLat>(); }

} // namespace railgauge::rdma
