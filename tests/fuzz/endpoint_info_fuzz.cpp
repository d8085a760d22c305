// EndpointInfo::parse (rdma/endpoint_info.h): the connection data a peer sends through the
// Store. Any bytes are an EndpointInfo or a BackendError naming the field, never a crash or
// another exception; what parses serializes and parses back to the same text.
#include <cstdint>
#include <cstdlib>
#include <string>

#include "harness/error.h"
#include "rdma/endpoint_info.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *data, std::size_t size) {
  const std::string text(reinterpret_cast<const char *>(data), size);
  try {
    const auto info = railgauge::rdma::EndpointInfo::parse(text);
    const std::string once = info.serialize();
    if (railgauge::rdma::EndpointInfo::parse(once).serialize() != once)
      std::abort(); // a round trip that changes the data
  } catch (const railgauge::BackendError &) {
  }
  return 0;
}
