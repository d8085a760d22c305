// decode_pair_reports (rdma/pair_report.h): what every rank all-gathers after a round of a pair
// matrix. The first byte picks the sending rank (0..7), the round of 8 endpoints and who owns
// them (a rank each, or two endpoints per rank as NICs of one node); the rest is what the rank
// sent. Any bytes are reports of distinct pairs of that round measured by the sender, or a
// BackendError, never a crash, another exception or a pair outside the round (its endpoints
// index the endpoint list); what decodes is encoded and decoded back unchanged.
#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <set>
#include <string>

#include "harness/error.h"
#include "rdma/pair_report.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *data, std::size_t size) {
  if (size == 0)
    return 0;
  namespace rdma = railgauge::rdma;
  const int from_rank = data[0] % 8;
  const bool two_per_rank = (data[0] / 8) % 2 == 1;
  const auto rounds = rdma::circle_rounds(8);
  const rdma::Round &round = rounds[(data[0] / 16) % rounds.size()];
  std::vector<int> owner;
  for (int e = 0; e < 8; ++e)
    owner.push_back(two_per_rank ? e / 2 : e);
  const std::string text(reinterpret_cast<const char *>(data) + 1, size - 1);
  try {
    const auto reports = rdma::decode_pair_reports(text, from_rank, round, owner);
    std::set<rdma::EndpointPair> seen;
    for (const auto &r : reports)
      if (std::find(round.begin(), round.end(), r.result.pair) == round.end() ||
          owner[static_cast<std::size_t>(r.result.pair.second)] != from_rank ||
          !seen.insert(r.result.pair).second)
        std::abort(); // a pair the sender did not measure in this round, or one twice
    const std::string once = rdma::encode_pair_reports(reports);
    if (rdma::encode_pair_reports(rdma::decode_pair_reports(once, from_rank, round, owner)) != once)
      std::abort(); // a round trip that changes the reports
  } catch (const railgauge::BackendError &) {
  }
  return 0;
}
