// decode_pair_report (rdma/tcp/pair_report.h): what every rank all-gathers after a round of the
// TCP pair matrix. The first byte picks the sending rank (0..7) and the round, the rest is what
// it sent. Any bytes are a report of a pair of that round measured by the sender, null, or a
// BackendError, never a crash, another exception or a pair outside the round (its ranks index
// the endpoint list); what decodes is encoded and decoded back unchanged.
#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <string>

#include "harness/error.h"
#include "rdma/tcp/pair_report.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *data, std::size_t size) {
  if (size == 0)
    return 0;
  namespace rdma = railgauge::rdma;
  const int from_rank = data[0] % 8;
  const auto rounds = rdma::circle_rounds(8);
  const rdma::Round &round = rounds[(data[0] / 8) % rounds.size()];
  const std::string text(reinterpret_cast<const char *>(data) + 1, size - 1);
  try {
    const auto report = rdma::decode_pair_report(text, from_rank, round);
    if (!report)
      return 0;
    if (std::find(round.begin(), round.end(), report->result.pair) == round.end() ||
        report->result.pair.second != from_rank)
      std::abort(); // a pair the sender did not measure in this round
    const std::string once = rdma::encode_pair_report(report);
    if (rdma::encode_pair_report(rdma::decode_pair_report(once, from_rank, round)) != once)
      std::abort(); // a round trip that changes the report
  } catch (const railgauge::BackendError &) {
  }
  return 0;
}
