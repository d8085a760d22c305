#pragma once
// The textbook algorithms' Transport over NCCL send/recv on device memory (compiled only with
// NCCL). Messages, copies and reductions are enqueued on one stream and not waited for: the
// stream orders them as the algorithm wrote them, as NCCL orders the steps of its own
// collectives, and the caller's wait (NcclSession::wait, under the watchdog) bounds the whole
// algorithm. A send and a receive that must overlap go in one NCCL group (sendrecv), so two
// ranks that exchange do not each wait for the other's receive; the host tests run every
// algorithm with rendezvous delivery to show that none needs more (thread_transport.h).
//
// Staging memory (packing and reduction buffers) is two regions of cudaMalloc'ed memory
// allocated with the transport, so nothing is allocated while an algorithm is timed, and a
// peer GPU of the same process can reach it (NCCL reads and writes such buffers directly once
// it has enabled peer access; memory-pool allocations would need access granted per pool).
// Reusing a region is safe because every use is ordered on the one stream.
#include <memory>

#include <nccl.h>

#include "collectives/transport.h"
#include "harness/cuda/resources.h"

namespace railgauge::collectives {

class NcclTransport final : public Transport {
public:
  // Rank `rank` of the `size`-rank communicator `comm`, whose device is `device`; staging for
  // messages of up to `staging_bytes` (the algorithm's whole buffer is always enough).
  NcclTransport(ncclComm_t comm, int rank, int size, int device, cudaStream_t stream,
                std::size_t staging_bytes);
  int rank() const override { return rank_; }
  int size() const override { return size_; }
  void sendrecv(int to, const std::byte *send_data, std::size_t send_bytes, int from,
                std::byte *recv_data, std::size_t recv_bytes) override;

  // One of the two staging regions (an exchange holds at most two: a packed send and a receive
  // to unpack or reduce); throws std::logic_error beyond that or beyond staging_bytes.
  std::unique_ptr<Scratch> scratch(std::size_t bytes) override;
  void copy(std::byte *dst, const std::byte *src, std::size_t bytes) override;
  void reduce(DType type, RedOp op, std::byte *acc, const std::byte *in,
              std::size_t count) override;

private:
  class Region;
  ncclComm_t comm_;
  int rank_, size_, device_;
  cudaStream_t stream_;
  std::size_t staging_bytes_;
  std::unique_ptr<gpu::DeviceBuffer> staging_[2];
  bool in_use_[2] = {false, false};
};

} // namespace railgauge::collectives
