// EndpointInfo::parse (rdma/endpoint_info.h): the connection data a peer sends through the
// Store. Any bytes are an EndpointInfo or a BackendError naming the field, never a crash or
// another exception. What parses holds exactly the peer's values (a QPN, LID or rkey out of its
// type's range is refused, never wrapped: a wrapped QPN connects to the wrong queue pair), and
// serializes and parses back to the same text.
#include <cstdint>
#include <cstdlib>
#include <string>

#include <nlohmann/json.hpp>

#include "harness/error.h"
#include "rdma/endpoint_info.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *data, std::size_t size) {
  const std::string text(reinterpret_cast<const char *>(data), size);
  try {
    const auto info = railgauge::rdma::EndpointInfo::parse(text);
    const std::string once = info.serialize();
    if (railgauge::rdma::EndpointInfo::parse(once).serialize() != once)
      std::abort(); // a round trip that changes the data
    const auto sent = nlohmann::json::parse(text);
    const auto kept = nlohmann::json::parse(once);
    for (const auto &[name, value] : kept.items())
      if (name != "gid" && sent.at(name) != value)
        std::abort(); // a value changed on the way in (narrowed, wrapped, rounded)
    if (railgauge::rdma::gid_from_text(sent.at("gid").get<std::string>()) != info.gid)
      std::abort();
  } catch (const railgauge::BackendError &) {
  }
  return 0;
}
