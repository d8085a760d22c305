#include "harness/cuda/gpudirect_buffer.h"

#include <unistd.h>

#include <cuda.h>
#include <cuda_runtime_api.h>
#include <fmt/format.h>

#include "harness/cuda/check.h"
#include "harness/cuda/device.h"
#include "harness/cuda/resources.h"
#include "harness/error.h"

namespace railgauge::gpu {
namespace {

constexpr std::size_t kLargePageBytes = std::size_t{2} << 20;

// cuPointerSetAttribute(SYNC_MEMOPS) through the runtime's driver entry point (nothing links
// libcuda). GPUDirect RDMA's rule: with it set, a synchronous cudaMemcpy or cudaMemset on the
// allocation is complete when it returns, so a peer's NIC that reads it next sees the new bytes.
void set_sync_memops(void *device_pointer) {
  using SetAttribute = CUresult (*)(const void *, CUpointer_attribute, CUdeviceptr);
  void *entry = nullptr;
  cudaDriverEntryPointQueryResult found{};
  if (cudaGetDriverEntryPointByVersion("cuPointerSetAttribute", &entry, 6000, cudaEnableDefault,
                                       &found) != cudaSuccess ||
      found != cudaDriverEntryPointSuccess || entry == nullptr) {
    (void)cudaGetLastError();
    throw BackendError("the CUDA driver has no cuPointerSetAttribute, which GPUDirect RDMA "
                       "buffers need (CU_POINTER_ATTRIBUTE_SYNC_MEMOPS)");
  }
  unsigned int on = 1;
  if (const CUresult r = reinterpret_cast<SetAttribute>(entry)(
          &on, CU_POINTER_ATTRIBUTE_SYNC_MEMOPS, reinterpret_cast<CUdeviceptr>(device_pointer));
      r != CUDA_SUCCESS)
    throw BackendError(fmt::format(
        "cuPointerSetAttribute(CU_POINTER_ATTRIBUTE_SYNC_MEMOPS) failed with CUresult {}",
        static_cast<int>(r)));
}

// Whether the device can flush its inbound GPUDirect RDMA writes for the host to see
// (cudaDeviceFlushGPUDirectRDMAWrites): where it cannot, the writes are ordered without it.
bool can_flush_rdma_writes(int device) {
  int options = 0;
  if (cudaDeviceGetAttribute(&options, cudaDevAttrGPUDirectRDMAFlushWritesOptions, device) !=
      cudaSuccess) {
    (void)cudaGetLastError();
    return false;
  }
  return (options & cudaFlushGPUDirectRDMAWritesOptionHost) != 0;
}

void check_range(std::size_t offset, std::size_t bytes, std::size_t size) {
  if (offset > size || bytes > size - offset)
    throw BackendError(fmt::format(
        "GPU buffer copy of {} bytes at offset {} is outside its {} bytes", bytes, offset, size));
}

} // namespace

struct GpuDirectBuffer::State {
  int device = 0;
  std::size_t bytes = 0;
  UniqueCudaHandle<void *, DeviceMemoryTraits> memory;
  bool flush_rdma_writes = false;
};

GpuDirectBuffer::GpuDirectBuffer(int device, std::size_t bytes)
    : state_(std::make_unique<State>()) {
  if (const auto why = cuda_unavailable_reason())
    throw BackendError(*why);
  if (device < 0 || device >= cuda_device_count())
    throw BackendError(fmt::format("CUDA device {} does not exist: {} device(s) visible", device,
                                   cuda_device_count()));
  const std::size_t rounded = (bytes + kLargePageBytes - 1) / kLargePageBytes * kLargePageBytes;
  DeviceGuard guard(device);
  void *p = nullptr;
  RAILGAUGE_CUDA_CALL(cudaMalloc(&p, rounded));
  state_->memory = UniqueCudaHandle<void *, DeviceMemoryTraits>(p);
  set_sync_memops(p);
  RAILGAUGE_CUDA_CALL(cudaMemset(p, 0, rounded));
  RAILGAUGE_CUDA_CALL(cudaDeviceSynchronize());
  state_->device = device;
  state_->bytes = rounded;
  state_->flush_rdma_writes = can_flush_rdma_writes(device);
}

GpuDirectBuffer::GpuDirectBuffer(GpuDirectBuffer &&) noexcept = default;
GpuDirectBuffer &GpuDirectBuffer::operator=(GpuDirectBuffer &&) noexcept = default;
GpuDirectBuffer::~GpuDirectBuffer() = default;

int GpuDirectBuffer::device() const { return state_->device; }
std::uint64_t GpuDirectBuffer::address() const {
  return reinterpret_cast<std::uint64_t>(state_->memory.get());
}
std::size_t GpuDirectBuffer::size_bytes() const { return state_->bytes; }

void GpuDirectBuffer::copy_in(std::size_t offset, const void *source, std::size_t bytes) {
  check_range(offset, bytes, state_->bytes);
  DeviceGuard guard(state_->device);
  RAILGAUGE_CUDA_CALL(cudaMemcpy(static_cast<std::uint8_t *>(state_->memory.get()) + offset, source,
                                 bytes, cudaMemcpyHostToDevice));
  // A pageable copy returns once staged: the bytes must be in GPU memory before a peer's NIC
  // reads them.
  RAILGAUGE_CUDA_CALL(cudaDeviceSynchronize());
}

void GpuDirectBuffer::copy_out(std::size_t offset, void *destination, std::size_t bytes) const {
  check_range(offset, bytes, state_->bytes);
  DeviceGuard guard(state_->device);
  // A peer's RDMA writes may still sit in the PCIe path: make them visible before reading.
  if (state_->flush_rdma_writes)
    RAILGAUGE_CUDA_CALL(cudaDeviceFlushGPUDirectRDMAWrites(
        cudaFlushGPUDirectRDMAWritesTargetCurrentDevice, cudaFlushGPUDirectRDMAWritesToOwner));
  RAILGAUGE_CUDA_CALL(cudaMemcpy(destination,
                                 static_cast<const std::uint8_t *>(state_->memory.get()) + offset,
                                 bytes, cudaMemcpyDeviceToHost));
}

std::variant<DmaBuf, std::string> GpuDirectBuffer::export_dmabuf() const {
  // A driver API call, reached through the runtime so that nothing links libcuda (the binary
  // must start on machines without a driver).
  using GetHandle =
      CUresult (*)(void *, CUdeviceptr, std::size_t, CUmemRangeHandleType, unsigned long long);
  void *entry = nullptr;
  cudaDriverEntryPointQueryResult found{};
  const cudaError_t error = cudaGetDriverEntryPointByVersion(
      "cuMemGetHandleForAddressRange", &entry, 11070, cudaEnableDefault, &found);
  if (error != cudaSuccess || found != cudaDriverEntryPointSuccess || entry == nullptr) {
    (void)cudaGetLastError();
    return std::string("the CUDA driver has no cuMemGetHandleForAddressRange (dma-buf export "
                       "needs driver 515 or newer)");
  }
  int supported = 0;
  if (cudaDeviceGetAttribute(&supported, cudaDevAttrGPUDirectRDMASupported, state_->device) !=
          cudaSuccess ||
      supported == 0) {
    (void)cudaGetLastError();
    return fmt::format("CUDA device {} does not support GPUDirect RDMA", state_->device);
  }
  const auto page = static_cast<std::uint64_t>(::sysconf(_SC_PAGESIZE));
  if (address() % page != 0)
    return fmt::format("the allocation at {:#x} is not aligned to the {}-byte host page that "
                       "a dma-buf export needs",
                       address(), page);
  int fd = -1;
  const CUresult result =
      reinterpret_cast<GetHandle>(entry)(&fd, static_cast<CUdeviceptr>(address()), state_->bytes,
                                         CU_MEM_RANGE_HANDLE_TYPE_DMA_BUF_FD, 0);
  if (result != CUDA_SUCCESS || fd < 0)
    return fmt::format("cuMemGetHandleForAddressRange(DMA_BUF_FD) failed with CUresult {} (the "
                       "GPU, driver or kernel has no dma-buf support)",
                       static_cast<int>(result));
  return DmaBuf{fd, 0};
}

} // namespace railgauge::gpu
