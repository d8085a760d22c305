#pragma once
// NVIDIA's Xid events from the kernel log: the driver logs every GPU error it sees (an ECC page
// retired, a GPU fallen off the bus, a channel reset) as "NVRM: Xid (PCI:0000:18:00): 79, ...".
// NVML has no counter of them, so a burn-in reads the log before and after each phase and fails
// a GPU that logged one meanwhile (harness/inventory/gpu_telemetry.h, health_delta).
//
// Read from /dev/kmsg (every record has a sequence number, so "since the phase began" is exact
// even when the ring buffer wraps); reading it needs root or CAP_SYSLOG on most systems: without
// it the log is unavailable, with the reason, and the rule that reads it reports missing.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

namespace railgauge {

struct XidEvent {
  std::uint64_t seq = 0;
  std::string pci; // "0000:18:00", as the driver writes it (no function)
  int xid = 0;
  std::string text; // the message after "NVRM: "
};

// One /dev/kmsg record ("4,1234,5678,-;NVRM: Xid (PCI:0000:18:00): 79, pid=...") as an Xid
// event, or nullopt for any other record. Pure.
std::optional<XidEvent> parse_kmsg_xid(std::string_view record);

struct KernelXids {
  bool available = false;
  std::string reason;         // why not, when unavailable
  std::uint64_t last_seq = 0; // the newest record's sequence number
  std::vector<XidEvent> xids;
};

// Every Xid record in the log now (non-blocking; never waits for new records).
KernelXids read_kernel_xids(const std::string &kmsg_path = "/dev/kmsg");

// True when the driver's "0000:18:00" names the GPU at bus id "0000:18:00.0" (or
// "00000000:18:00.0", NVML's form), whatever the case.
bool xid_names_gpu(const std::string &xid_pci, const std::string &gpu_pci);

} // namespace railgauge
