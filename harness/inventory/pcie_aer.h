#pragma once
// A GPU's PCIe error counters, read before and after each burn phase so that the errors a link
// logs under load are judged (DCGM level 2's pcie plugin reads replays and AER):
//
//   <sysfs_root>/bus/pci/devices/<bus id>/aer_dev_correctable   RxErr, BadTLP, BadDLLP, Rollover
//                                          aer_dev_nonfatal      (replay number rollover), Timeout
//                                          aer_dev_fatal         (replay timer), ..., TOTAL_ERR_*
//
// (Linux's AER statistics, Documentation/ABI/testing/sysfs-bus-pci-devices-aer_stats). A kernel
// without AER, or a VM whose virtual root port hides it, has none of these files: the counters
// are then unavailable, with the reason, never zero.
#include <string>

#include <nlohmann/json.hpp>

namespace railgauge {

// "NAME COUNT" lines as the kernel writes them: {NAME: COUNT}; lines of another shape are left out.
nlohmann::json parse_aer_counters(const std::string &text);

// {"available": true, "correctable": {...}, "nonfatal": {...}, "fatal": {...}} with each file's
// counters, or {"available": false, "reason": "..."} when the device has no AER statistics.
nlohmann::json read_pcie_aer(const std::string &sysfs_root, const std::string &bus_id);

} // namespace railgauge
