// PeerResult::parse (rdma/peer_result.h): the result the serving side of a TCP or verbs pair
// sends through the Store. Any bytes are a result or a BackendError naming the field, never a
// crash or another exception; what parses is written and parsed back unchanged.
#include <cstdint>
#include <cstdlib>
#include <string>

#include "harness/error.h"
#include "rdma/peer_result.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *data, std::size_t size) {
  const std::string text(reinterpret_cast<const char *>(data), size);
  try {
    const auto result = railgauge::rdma::PeerResult::parse(text);
    const std::string once = result.to_json().dump();
    if (railgauge::rdma::PeerResult::parse(once).to_json().dump() != once)
      std::abort(); // a round trip that changes the result
  } catch (const railgauge::BackendError &) {
  }
  return 0;
}
