// parse_peer_endpoint (rdma/tcp/tcp_socket.h): the "address:port" a TCP baseline server announces
// through the Store and its client connects to. Any bytes are an endpoint or a BackendError, never
// a crash or another exception (std::stoi's std::invalid_argument was one); what parses is written
// and parsed back to the same endpoint.
#include <cstdint>
#include <cstdlib>
#include <string>

#include "harness/error.h"
#include "rdma/tcp/tcp_socket.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *data, std::size_t size) {
  const std::string text(reinterpret_cast<const char *>(data), size);
  try {
    const auto endpoint = railgauge::rdma::parse_peer_endpoint(text);
    if (endpoint.port == 0 || endpoint.address.empty())
      std::abort();
    if (railgauge::rdma::parse_peer_endpoint(endpoint.to_string()) != endpoint)
      std::abort(); // a round trip that changes the endpoint
  } catch (const railgauge::BackendError &) {
  }
  return 0;
}
