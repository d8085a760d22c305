#include "harness/cuda/device.h"

#include <cctype>

#include <cuda_runtime_api.h>
#include <fmt/format.h>

#include "harness/cuda/check.h"
#include "harness/cuda/driver_needed.h"
#include "harness/cuda/resources.h"
#include "harness/error.h"

namespace railgauge::gpu {

std::optional<std::string> cuda_unavailable_reason() {
  int count = 0;
  const cudaError_t error = cudaGetDeviceCount(&count);
  if (error != cudaSuccess) {
    // The error is not sticky, but clear it so a later cudaGetLastError does not report it.
    (void)cudaGetLastError();
    if (error == cudaErrorInsufficientDriver) {
      int driver = 0;
      if (cudaDriverGetVersion(&driver) != cudaSuccess)
        driver = 0;
      (void)cudaGetLastError();
      return fmt::format("{} (cudaGetDeviceCount returned {})",
                         insufficient_driver_reason(driver, CUDART_VERSION),
                         cudaGetErrorName(error));
    }
    const char *what = error == cudaErrorNoDevice ? "no CUDA device" : "CUDA unavailable";
    return fmt::format("{}: cudaGetDeviceCount returned {} ({})", what, cudaGetErrorName(error),
                       cudaGetErrorString(error));
  }
  if (count == 0)
    return "no CUDA device: cudaGetDeviceCount found 0 devices (check CUDA_VISIBLE_DEVICES)";
  return std::nullopt;
}

int cuda_device_count() {
  int count = 0;
  if (cudaGetDeviceCount(&count) != cudaSuccess) {
    (void)cudaGetLastError();
    return 0;
  }
  return count;
}

CudaDeviceInfo cuda_device_info(int device) {
  const int count = cuda_device_count();
  if (device < 0 || device >= count)
    throw BackendError(
        fmt::format("CUDA device {} does not exist: {} device(s) visible", device, count));
  CudaDeviceInfo info;
  info.index = device;
  cudaDeviceProp prop{};
  RAILGAUGE_CUDA_CALL(cudaGetDeviceProperties(&prop, device));
  info.name = prop.name;
  info.uuid = "GPU-";
  for (int i = 0; i < 16; ++i) {
    if (i == 4 || i == 6 || i == 8 || i == 10)
      info.uuid += '-';
    info.uuid += fmt::format("{:02x}", static_cast<unsigned char>(prop.uuid.bytes[i]));
  }
  char bus_id[32] = {};
  RAILGAUGE_CUDA_CALL(cudaDeviceGetPCIBusId(bus_id, sizeof bus_id, device));
  info.pci_bus_id = bus_id;
  // The runtime writes hex digits in upper case; sysfs, hwloc and the inventory use lower case,
  // and records are joined on this string.
  for (char &c : info.pci_bus_id)
    c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  RAILGAUGE_CUDA_CALL(
      cudaDeviceGetAttribute(&info.sm_count, cudaDevAttrMultiProcessorCount, device));
  int major = 0, minor = 0, l2 = 0;
  RAILGAUGE_CUDA_CALL(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device));
  RAILGAUGE_CUDA_CALL(cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, device));
  RAILGAUGE_CUDA_CALL(cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, device));
  info.compute_capability = 10 * major + minor;
  info.l2_bytes = static_cast<std::uint64_t>(l2);
  // cudaMemGetInfo answers for the current device: make it `device` for the call only.
  const DeviceGuard guard(device);
  std::size_t free_bytes = 0, total_bytes = 0;
  RAILGAUGE_CUDA_CALL(cudaMemGetInfo(&free_bytes, &total_bytes));
  info.free_memory_bytes = free_bytes;
  info.total_memory_bytes = total_bytes;
  return info;
}

} // namespace railgauge::gpu
