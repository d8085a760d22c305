#include "collectives/nccl/nccl_transport.h"

#include <stdexcept>

#include <fmt/format.h>

#include "collectives/nccl/device_reduce.h"
#include "collectives/nccl/nccl_group.h"
#include "collectives/nccl/nccl_session.h"
#include "harness/cuda/check.h"

namespace railgauge::collectives {

// A staging region lent to the algorithm until it drops the Scratch.
class NcclTransport::Region final : public Transport::Scratch {
public:
  Region(std::byte *data, bool &in_use) : data_(data), in_use_(in_use) { in_use_ = true; }
  ~Region() override { in_use_ = false; }
  Region(const Region &) = delete;
  Region &operator=(const Region &) = delete;
  std::byte *data() override { return data_; }

private:
  std::byte *data_;
  bool &in_use_;
};

NcclTransport::NcclTransport(ncclComm_t comm, int rank, int size, int device, cudaStream_t stream,
                             std::size_t staging_bytes)
    : comm_(comm), rank_(rank), size_(size), device_(device), stream_(stream),
      staging_bytes_(staging_bytes) {
  gpu::DeviceGuard guard(device);
  // cudaMalloc of 0 bytes gives a null pointer; an empty buffer never needs staging.
  if (staging_bytes)
    for (auto &region : staging_)
      region = std::make_unique<gpu::DeviceBuffer>(staging_bytes);
}

void NcclTransport::sendrecv(int to, const std::byte *send_data, std::size_t send_bytes, int from,
                             std::byte *recv_data, std::size_t recv_bytes) {
  // An empty block is skipped on both sides: its size is known to sender and receiver alike
  // (the algorithms derive block sizes from count and rank count only).
  const bool sending = to >= 0 && send_bytes > 0;
  const bool receiving = from >= 0 && recv_bytes > 0;
  if (!sending && !receiving)
    return;
  gpu::DeviceGuard guard(device_);
  NcclGroup group;
  if (sending)
    check_nccl(ncclSend(send_data, send_bytes, ncclUint8, to, comm_, stream_), "ncclSend");
  if (receiving)
    check_nccl(ncclRecv(recv_data, recv_bytes, ncclUint8, from, comm_, stream_), "ncclRecv");
  group.end();
}

std::unique_ptr<Transport::Scratch> NcclTransport::scratch(std::size_t bytes) {
  if (bytes > staging_bytes_)
    throw std::logic_error(fmt::format("NCCL transport: {} bytes of staging asked, {} allocated",
                                       bytes, staging_bytes_));
  for (int i = 0; i < 2; ++i)
    if (!in_use_[i]) {
      auto *data = staging_[i] ? static_cast<std::byte *>(staging_[i]->get()) : nullptr;
      return std::make_unique<Region>(data, in_use_[i]);
    }
  throw std::logic_error("NCCL transport: a third staging buffer asked while two are in use");
}

void NcclTransport::copy(std::byte *dst, const std::byte *src, std::size_t bytes) {
  if (!bytes || dst == src)
    return;
  gpu::DeviceGuard guard(device_);
  RAILGAUGE_CUDA_CALL(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToDevice, stream_));
}

void NcclTransport::reduce(DType type, RedOp op, std::byte *acc, const std::byte *in,
                           std::size_t count) {
  gpu::DeviceGuard guard(device_);
  enqueue_device_reduce(type, op, acc, in, count, stream_);
}

} // namespace railgauge::collectives
