#include "collectives/transport.h"

#include <cstring>
#include <vector>

namespace railgauge::collectives {
namespace {
class HostScratch final : public Transport::Scratch {
public:
  explicit HostScratch(std::size_t bytes) : bytes_(bytes) {}
  std::byte *data() override { return bytes_.data(); }

private:
  std::vector<std::byte> bytes_;
};
} // namespace

void Transport::send(int peer, const std::byte *data, std::size_t bytes) {
  sendrecv(peer, data, bytes, -1, nullptr, 0);
}

void Transport::recv(int peer, std::byte *data, std::size_t bytes) {
  sendrecv(-1, nullptr, 0, peer, data, bytes);
}

std::unique_ptr<Transport::Scratch> Transport::scratch(std::size_t bytes) {
  return std::make_unique<HostScratch>(bytes);
}

void Transport::copy(std::byte *dst, const std::byte *src, std::size_t bytes) {
  if (bytes && dst != src)
    std::memmove(dst, src, bytes);
}

void Transport::reduce(DType type, RedOp op, std::byte *acc, const std::byte *in,
                       std::size_t count) {
  reduce_into(type, op, acc, in, count);
}

} // namespace railgauge::collectives
