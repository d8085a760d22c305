#pragma once
// Several GPUs' streams held behind one BlockingKernel each while the host enqueues work on all
// of them (an NCCL group over every local GPU, a window of collectives beside GEMMs). Include
// only from sources compiled when RAILGAUGE_HAS_CUDA.
//
// Why: without the hold, each GPU starts at its first launch, so a start event recorded before
// the enqueue times the host's launch of the whole group on every GPU (tens of microseconds for
// eight GPUs), and small collectives report a fraction of their bandwidth.
//
//   gpu::StreamGates gates(devices);
//   {
//     auto held = gates.hold(streams, timeout_s); // every stream waits from here
//     <record the start events, enqueue, record the stop events>
//   }                                             // released: the GPUs run back to back
//   <synchronise>; if (gates.timed_out() > 0) ... // those iterations timed the launches too
#include <cstddef>
#include <memory>
#include <utility>
#include <vector>

#include <cuda_runtime_api.h>

#include "harness/cuda/blocking_kernel.h"
#include "harness/cuda/resources.h"

namespace railgauge::gpu {

class StreamGates {
public:
  // One gate per device, in the order of the streams given to hold().
  explicit StreamGates(std::vector<int> devices);

  // Releases every gate when it goes out of scope, an exception included, so that a failed
  // enqueue never leaves a GPU spinning until the gate's timeout.
  class Held {
  public:
    explicit Held(StreamGates &gates) : gates_(&gates) {}
    Held(Held &&other) noexcept : gates_(std::exchange(other.gates_, nullptr)) {}
    Held &operator=(Held &&) = delete;
    ~Held() {
      if (gates_)
        gates_->release();
    }

  private:
    StreamGates *gates_;
  };

  // Holds streams[i] (a stream of device i) until the Held is dropped. A gate gives up after
  // `timeout_s`: a lost release or a full launch queue costs seconds, never a hang.
  [[nodiscard]] Held hold(const std::vector<cudaStream_t> &streams, double timeout_s);

  // After the streams have been synchronised: the holds whose gate gave up waiting, counted
  // over every hold so far (one per gate and hold).
  int timed_out();

private:
  void count_timeouts(); // adds the gates of the last hold that gave up, once each
  void release() noexcept;
  std::vector<int> devices_;
  std::vector<std::unique_ptr<BlockingKernel>> gates_;
  std::vector<bool> counted_; // whether gate i's current hold is already in timed_out_
  int timed_out_ = 0;
};

} // namespace railgauge::gpu
