#pragma once
// GPU memory that a NIC reads and writes directly (GPUDirect RDMA): device memory of one GPU,
// filled and read back from the host, and exported as a dma-buf file descriptor for
// ibv_reg_dmabuf_mr. Free of CUDA types, so it is compiled in every build: without CUDA
// (cuda_stub.cpp) the constructor throws BackendError saying so, never a silent no-op.
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <variant>

namespace railgauge::gpu {

// A dma-buf of a device allocation: the file descriptor (owned by whoever receives it) and
// where the buffer's first byte lies in it.
struct DmaBuf {
  int fd = -1;
  std::uint64_t offset = 0;
};

class GpuDirectBuffer {
public:
  // `bytes` of device memory on CUDA device `device`, zeroed, with SYNC_MEMOPS set (GPUDirect
  // RDMA's rule: synchronous copies into it are complete on return). The allocation is rounded
  // up to 2 MiB, the GPU's large-page size, so that its start and length are page-aligned as a
  // dma-buf export requires. Throws BackendError (no CUDA, no such device, out of memory).
  GpuDirectBuffer(int device, std::size_t bytes);
  GpuDirectBuffer(GpuDirectBuffer &&) noexcept;
  GpuDirectBuffer &operator=(GpuDirectBuffer &&) noexcept;
  ~GpuDirectBuffer();

  int device() const;
  std::uint64_t address() const; // the device pointer, as a NIC addresses it
  std::size_t size_bytes() const;
  // Host <-> device copies into and out of [offset, offset + bytes); BackendError when the
  // range is outside the buffer or the copy fails. copy_in returns with the bytes in GPU memory
  // (a peer may read them next); copy_out first flushes the peers' RDMA writes where the GPU
  // supports it (cudaDeviceFlushGPUDirectRDMAWrites).
  void copy_in(std::size_t offset, const void *source, std::size_t bytes);
  void copy_out(std::size_t offset, void *destination, std::size_t bytes) const;
  // The whole allocation as a dma-buf (cuMemGetHandleForAddressRange), or why not: a driver
  // without the entry point, a GPU or kernel without dma-buf support.
  std::variant<DmaBuf, std::string> export_dmabuf() const;

private:
  struct State;
  std::unique_ptr<State> state_;
};

} // namespace railgauge::gpu
