#include "rdma/rdma_record.h"
#include "rdma/verbs_benchmark.h"

namespace railgauge::rdma {
namespace {

class SendBw final : public VerbsBenchmark {
public:
  SendBw() : VerbsBenchmark(Verb::send, false) {}
  std::string_view key() const override { return record::kSendBw; }
  std::string_view description() const override {
    return "RC RDMA SEND bandwidth vs message size: Gb/s, GB/s and message rate; QPs, post lists, "
           "CQ moderation, inline; uni- or bidirectional; data checked; port counter deltas";
  }
};

} // namespace

std::unique_ptr<Benchmark> make_send_bw() { return std::make_unique<SendBw>(); }

} // namespace railgauge::rdma
