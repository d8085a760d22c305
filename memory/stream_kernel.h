#pragma once
// The STREAM-style kernels that the host DRAM (memory.host_*) and HBM (memory.hbm_*) benchmarks
// share, and the ONE place where their bytes are counted. Plain C++17 so that nvcc includes it.
//
// Bytes per call = bytes read + bytes written, each array counted once (STREAM, BabelStream and
// likwid-bench count the same way). Write-allocate traffic is not counted: with normal stores a
// CPU reads every written line first, so write really moves 2x, copy 3x and triad 4x the array
// bytes through DRAM. nvbandwidth counts a device-local copy once (its issue #48); railgauge
// counts its read and its write, so its copy figures are 2x nvbandwidth's for the same time.
// GPUs do not read a line before writing it, so for HBM the bytes counted are the bytes moved.
#include <cstdint>

namespace railgauge::memory {

enum class StreamKernel {
  read,         // sum += a[i]
  write,        // a[i] = s
  copy,         // c[i] = a[i]
  triad,        // a[i] = b[i] + s * c[i]
  library_copy, // c = a through the library's copy (cudaMemcpyAsync device to device)
};

constexpr int arrays_used(StreamKernel kernel) {
  switch (kernel) {
  case StreamKernel::read:  // load a
  case StreamKernel::write: // store a
    return 1;
  case StreamKernel::copy:         // load a, store c
  case StreamKernel::library_copy: // read the source, write the destination
    return 2;
  case StreamKernel::triad: // load b, load c, store a
    return 3;
  }
  return 0;
}

constexpr std::uint64_t bytes_moved_per_call(StreamKernel kernel, std::uint64_t array_bytes) {
  return static_cast<std::uint64_t>(arrays_used(kernel)) * array_bytes;
}

} // namespace railgauge::memory
