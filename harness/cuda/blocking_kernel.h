#pragma once
// A kernel that holds a stream until the host releases it (nvbench's blocking_kernel.cuh,
// nvbandwidth's spin kernel). Include only from sources compiled when RAILGAUGE_HAS_CUDA.
//
// Why: launching N kernels costs the host microseconds each. If the GPU starts on the first
// launch while the host is still enqueuing the rest, a batch of short kernels measures the
// launch rate, not the kernels. With the stream held, the whole batch sits queued when the
// start event is reached, and the events time only the GPU's work.
//
//   BlockingKernel gate;
//   gate.block(stream);                       // stream waits from here
//   cudaEventRecord(start, stream); <enqueue the batch>; cudaEventRecord(stop, stream);
//   gate.release();                           // the GPU runs start, batch, stop back to back
//   cudaStreamSynchronize(stream);
//   if (gate.timed_out()) ...                 // the timing is not trustworthy: report it
//
// Caveats. A stream holds a limited number of pending launches (on the order of a thousand);
// enqueuing more behind a blocked stream makes the host wait for the GPU, which waits for the
// host. The kernel therefore reads %globaltimer and gives up after `timeout_s`, so a lost
// release or a full queue costs seconds, never a hang; timed_out() then says so. The flag lives
// in mapped pinned host memory; the kernel polls it over PCIe, which is harmless while nothing
// else runs on the stream.
#include <cuda_runtime_api.h>

#include "harness/cuda/resources.h"

namespace railgauge::gpu {

class BlockingKernel {
public:
  BlockingKernel();
  // Launches the spin kernel on `stream` (one thread on one SM) and clears timed_out().
  void block(cudaStream_t stream, double timeout_s);
  // Lets the spin kernel finish. Safe to call more than once and without a block().
  void release() noexcept;
  // After the stream has been synchronised: whether the kernel gave up waiting.
  bool timed_out() const;

private:
  struct Flags {
    int release;
    int timed_out;
  };
  volatile Flags *host_flags() const { return static_cast<volatile Flags *>(flags_.host()); }
  MappedHostBuffer flags_;
};

} // namespace railgauge::gpu
