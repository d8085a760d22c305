#pragma once
// RAII owners of CUDA runtime handles (nvbandwidth's DeviceBuffer/HostBuffer). Each
// is move-only, throws BackendError when creation fails and never throws from its destructor.
// Include only from sources compiled when RAILGAUGE_HAS_CUDA.
#include <cstddef>
#include <utility>

#include <cuda_runtime_api.h>

#include "harness/cuda/check.h"

namespace railgauge::gpu {

// Makes `device` current for a scope and restores the previous one: the runtime's current
// device is per-thread state that callers do not expect a helper to change. When `device` is
// already current it does nothing: since CUDA 12, cudaSetDevice creates the device's primary
// context, so restoring a thread's default device 0 that it never used would put a context
// (hundreds of MB) on GPU 0 from every process that drives another GPU. A process that drives
// one GPU makes it current once (NcclSession does), and its guards then cost nothing.
class DeviceGuard {
public:
  explicit DeviceGuard(int device) {
    RAILGAUGE_CUDA_CALL(cudaGetDevice(&previous_));
    if (previous_ != device)
      RAILGAUGE_CUDA_CALL(cudaSetDevice(device));
    changed_ = previous_ != device;
  }
  ~DeviceGuard() {
    if (changed_)
      RAILGAUGE_CUDA_CALL_NOEXCEPT(cudaSetDevice(previous_));
  }
  DeviceGuard(const DeviceGuard &) = delete;
  DeviceGuard &operator=(const DeviceGuard &) = delete;

private:
  int previous_ = 0;
  bool changed_ = false;
};

// Handle owner shared by the classes below: `Traits::destroy(handle)` frees a non-null handle.
template <typename Handle, typename Traits> class UniqueCudaHandle {
public:
  UniqueCudaHandle() = default;
  explicit UniqueCudaHandle(Handle h) : handle_(h) {}
  UniqueCudaHandle(UniqueCudaHandle &&other) noexcept
      : handle_(std::exchange(other.handle_, Handle{})) {}
  UniqueCudaHandle &operator=(UniqueCudaHandle &&other) noexcept {
    if (this != &other) {
      reset();
      handle_ = std::exchange(other.handle_, Handle{});
    }
    return *this;
  }
  UniqueCudaHandle(const UniqueCudaHandle &) = delete;
  UniqueCudaHandle &operator=(const UniqueCudaHandle &) = delete;
  ~UniqueCudaHandle() { reset(); }

  Handle get() const { return handle_; }
  void reset() noexcept {
    if (handle_)
      Traits::destroy(std::exchange(handle_, Handle{}));
  }

private:
  Handle handle_{};
};

struct DeviceMemoryTraits {
  static void destroy(void *p) noexcept { RAILGAUGE_CUDA_CALL_NOEXCEPT(cudaFree(p)); }
};
struct HostMemoryTraits {
  static void destroy(void *p) noexcept { RAILGAUGE_CUDA_CALL_NOEXCEPT(cudaFreeHost(p)); }
};
struct StreamTraits {
  static void destroy(cudaStream_t s) noexcept {
    RAILGAUGE_CUDA_CALL_NOEXCEPT(cudaStreamDestroy(s));
  }
};
struct EventTraits {
  static void destroy(cudaEvent_t e) noexcept { RAILGAUGE_CUDA_CALL_NOEXCEPT(cudaEventDestroy(e)); }
};

// `bytes` of device memory on the current device (cudaMalloc: 256-byte aligned, so 16-byte
// vector accesses are aligned).
class DeviceBuffer {
public:
  explicit DeviceBuffer(std::size_t bytes) : bytes_(bytes) {
    void *p = nullptr;
    RAILGAUGE_CUDA_CALL(cudaMalloc(&p, bytes));
    memory_ = UniqueCudaHandle<void *, DeviceMemoryTraits>(p);
  }
  void *get() const { return memory_.get(); }
  template <typename T> T *as() const { return static_cast<T *>(memory_.get()); }
  std::size_t bytes() const { return bytes_; }

private:
  UniqueCudaHandle<void *, DeviceMemoryTraits> memory_;
  std::size_t bytes_ = 0;
};

// Page-locked host memory mapped into every device's address space (cudaHostAllocMapped |
// Portable): kernels read and write it over PCIe, which is what the blocking kernel's release
// flag needs.
class MappedHostBuffer {
public:
  explicit MappedHostBuffer(std::size_t bytes) : bytes_(bytes) {
    void *p = nullptr;
    RAILGAUGE_CUDA_CALL(cudaHostAlloc(&p, bytes, cudaHostAllocMapped | cudaHostAllocPortable));
    memory_ = UniqueCudaHandle<void *, HostMemoryTraits>(p);
    RAILGAUGE_CUDA_CALL(cudaHostGetDevicePointer(&device_pointer_, p, 0));
  }
  void *host() const { return memory_.get(); }
  void *device() const { return device_pointer_; }
  std::size_t bytes() const { return bytes_; }

private:
  UniqueCudaHandle<void *, HostMemoryTraits> memory_;
  void *device_pointer_ = nullptr;
  std::size_t bytes_ = 0;
};

// A non-blocking stream on the current device: it does not synchronise with the legacy
// default stream, so other libraries' work on stream 0 cannot slip into a timed batch.
class Stream {
public:
  Stream() {
    cudaStream_t s = nullptr;
    RAILGAUGE_CUDA_CALL(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    stream_ = UniqueCudaHandle<cudaStream_t, StreamTraits>(s);
  }
  cudaStream_t get() const { return stream_.get(); }

private:
  UniqueCudaHandle<cudaStream_t, StreamTraits> stream_;
};

// A timing event on the current device.
class Event {
public:
  Event() {
    cudaEvent_t e = nullptr;
    RAILGAUGE_CUDA_CALL(cudaEventCreate(&e));
    event_ = UniqueCudaHandle<cudaEvent_t, EventTraits>(e);
  }
  cudaEvent_t get() const { return event_.get(); }

private:
  UniqueCudaHandle<cudaEvent_t, EventTraits> event_;
};

} // namespace railgauge::gpu
