#pragma once
// Which CUDA devices this process sees and what they are, for waivers, grid sizing and the
// records' `device` field. Free of CUDA types, so it is compiled in every build: without CUDA
// (device_stub.cpp) there are no devices and the reason says why, never a silent no-op.
#include <cstdint>
#include <optional>
#include <string>

namespace railgauge::gpu {

// Why no CUDA work can run here, or nullopt when at least one device is usable: built without
// CUDA, no driver or a driver older than the runtime this was built with, no device visible
// (CUDA_VISIBLE_DEVICES). Carries cudaGetDeviceCount's error name and text.
std::optional<std::string> cuda_unavailable_reason();

// Devices visible to this process; 0 when cuda_unavailable_reason() has a reason.
int cuda_device_count();

struct CudaDeviceInfo {
  int index = 0;              // the CUDA runtime's ordinal (after CUDA_VISIBLE_DEVICES)
  std::string name;           // "NVIDIA H100 80GB HBM3"
  std::string uuid;           // "GPU-xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx", as nvidia-smi
  std::string pci_bus_id;     // "0000:19:00.0", lower case as sysfs and hwloc write it
  int sm_count = 0;           // streaming multiprocessors
  int compute_capability = 0; // 90 for sm_90
  std::uint64_t l2_bytes = 0; // whole L2, both partitions
  std::uint64_t total_memory_bytes = 0;
  std::uint64_t free_memory_bytes = 0; // at the time of the call (creates the context)
};

// Throws BackendError when the index is not a visible device or a query fails.
CudaDeviceInfo cuda_device_info(int device);

} // namespace railgauge::gpu
