#pragma once
// Device memory for a collective's send and receive buffers, allocated one of two ways:
// cudaMalloc, or ncclMemAlloc (the cuMem API with NCCL's granularity), which is how nccl-tests
// allocates them from NCCL 2.19 on (AllocateBuffs in its src/common.cu). On one H100 the two
// tools' out-of-place times differed by 2-3 % at 32-64 MiB and 1.6-1.7x at 16 MiB
// (results/reference/h100-2026-11-27); the axis `buffers` measures railgauge both ways.
#include <cstddef>
#include <string_view>

namespace railgauge::collectives {

enum class BufferAlloc { cuda_malloc, nccl_mem_alloc };

// "cuda_malloc" or "nccl_mem_alloc"; std::invalid_argument naming the value otherwise.
BufferAlloc parse_buffer_alloc(std::string_view text);

class NcclBuffer {
public:
  // On the current device; 0 bytes allocates nothing (get() is null).
  NcclBuffer(std::size_t bytes, BufferAlloc alloc);
  ~NcclBuffer();
  NcclBuffer(const NcclBuffer &) = delete;
  NcclBuffer &operator=(const NcclBuffer &) = delete;
  void *get() const { return memory_; }
  std::size_t bytes() const { return bytes_; }

private:
  void *memory_ = nullptr;
  std::size_t bytes_ = 0;
  BufferAlloc alloc_;
};

} // namespace railgauge::collectives
