// The TCP store's wire decoders (harness/store/store_wire.h): any bytes a peer sends are a whole
// message, a need for more bytes or a malformed message, never a crash, an exception or an
// allocation above the limits. A message decoded is encoded and decoded again unchanged.
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include "harness/store/store_wire.h"

namespace wire = railgauge::store_wire;

namespace {

template <class Message, class Parse, class Encode>
void check(std::string_view bytes, Parse parse, Encode encode) {
  const auto parsed = parse(bytes);
  if (parsed.state != wire::Parse::complete)
    return;
  if (parsed.consumed_bytes == 0 || parsed.consumed_bytes > bytes.size())
    std::abort();
  const std::string again = encode(parsed.message);
  if (again != bytes.substr(0, parsed.consumed_bytes))
    std::abort(); // a message that does not survive its own round trip
  const auto reparsed = parse(again);
  if (reparsed.state != wire::Parse::complete || reparsed.consumed_bytes != again.size())
    std::abort();
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *data, std::size_t size) {
  if (size == 0)
    return 0;
  // The first byte picks the decoder, the rest is what the peer sent.
  const std::string_view bytes(reinterpret_cast<const char *>(data) + 1, size - 1);
  switch (data[0] % 4) {
  case 0:
    check<wire::Hello>(bytes, wire::parse_hello, wire::encode_hello);
    break;
  case 1:
    check<wire::HelloReply>(bytes, wire::parse_hello_reply, wire::encode_hello_reply);
    break;
  case 2:
    check<wire::Request>(bytes, wire::parse_request, wire::encode_request);
    break;
  case 3:
    check<wire::Reply>(bytes, wire::parse_reply, wire::encode_reply);
    break;
  }
  return 0;
}
