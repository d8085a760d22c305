#pragma once
// What the offload benchmarks share, and the ONE place their bytes are counted. Plain C++17 so
// that nvcc includes it.
//
// Bytes per call are the bytes that cross the host<->GPU link, once: a copy of `size` bytes is
// `size` (nvbandwidth counts the same way, so the figures compare directly), bidirectional is
// size in each direction (2x size), all GPUs at once is size per GPU. A zero-copy kernel is
// counted like the copy it replaces: `size` bytes read over the link plus a write to HBM that is
// not counted (HBM is not the bottleneck of a 60 GB/s link).
#include <cstdint>

namespace railgauge::offload {

enum class OffloadPath {
  h2d,             // cudaMemcpyAsync host -> device (copy engine, or pageable staging)
  d2h,             // cudaMemcpyAsync device -> host
  bidir,           // h2d and d2h at once, one stream each
  zero_copy_read,  // a kernel reads mapped pinned host memory and stores it in HBM
  zero_copy_write, // a kernel reads HBM and stores it in mapped pinned host memory
  all_gpus_h2d,    // h2d on every visible GPU at once
  all_gpus_d2h,    // d2h on every visible GPU at once
  with_gemm,       // h2d or d2h while a GEMM runs on the same GPU
};

// Host buffers of `size` bytes a point holds (pinned memory: locked, so counted against the
// host's available memory before anything is allocated).
constexpr int host_buffers(OffloadPath path, int gpus) {
  switch (path) {
  case OffloadPath::bidir:
    return 2;
  case OffloadPath::all_gpus_h2d:
  case OffloadPath::all_gpus_d2h:
    return gpus;
  default:
    return 1;
  }
}

// Device buffers of `size` bytes per GPU.
constexpr int device_buffers(OffloadPath path) { return path == OffloadPath::bidir ? 2 : 1; }

constexpr std::uint64_t offload_bytes_per_call(OffloadPath path, std::uint64_t size_bytes,
                                               int gpus = 1) {
  switch (path) {
  case OffloadPath::bidir:
    return 2 * size_bytes;
  case OffloadPath::all_gpus_h2d:
  case OffloadPath::all_gpus_d2h:
    return static_cast<std::uint64_t>(gpus) * size_bytes;
  default:
    return size_bytes;
  }
}

constexpr bool is_all_gpus(OffloadPath path) {
  return path == OffloadPath::all_gpus_h2d || path == OffloadPath::all_gpus_d2h;
}

} // namespace railgauge::offload
