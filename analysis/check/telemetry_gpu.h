#pragma once
// The GPU a value of a node's record belongs to. A rank's all_reduce record
// (collectives.nccl_all_reduce) holds its GPU's telemetry window, or one per GPU it drives
// (metrics.telemetry.per_gpu[]), and carries no device of its own: a fault a rule finds there
// (an Xid, 50,000 corrected ECC errors during the all_reduce) failed the node while the GPU's
// own row read PASS. The window names its GPU (before/after.pci_bus_id, or the uuid of a
// per_gpu[] element: harness/inventory/gpu_telemetry.h), so the finding can be the GPU's.
#include <string>
#include <vector>

#include "harness/record.h"

namespace railgauge::check {

// The GPU whose telemetry window holds the value at `path`, a concrete metric path of `r` under
// metrics.telemetry: the nearest enclosing object whose `before` or `after` names a pci_bus_id,
// or that names its GPU's uuid (an element of per_gpu[]). Both empty where none does.
struct TelemetryGpu {
  std::string pci_bus_id; // as NVML wrote it
  std::string uuid;
};
TelemetryGpu telemetry_gpu_of(const Record &r, const std::string &path);

// Every GPU a telemetry window of `r` names: metrics.telemetry itself and each element of its
// per_gpu[] (one process driving several GPUs); windows that name none are left out.
std::vector<TelemetryGpu> telemetry_windows_of(const Record &r);

} // namespace railgauge::check
