#pragma once
// RDMA NIC inventory through libibverbs: per device its node GUID and firmware, per port its
// state, rate, link layer, MTU, LIDs and GID table (with the RoCE version and netdev of each
// GID, which only sysfs tells). Built from verbs.cpp when libibverbs was found
// (RAILGAUGE_HAS_IBVERBS), else verbs_stub.cpp. No RDMA device is an empty list, not an error.
#include <cstdint>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

namespace railgauge {

// {"available": bool, "reason": string|null, "devices": [...]}; see inventory.schema.json.
// sysfs_root: "/sys" on a real machine (GID types and netdevs are read from there).
nlohmann::json query_verbs(const std::string &sysfs_root);

// Port rate in Gb/s (Gb = 1e9 bits) from ibv_port_attr's active_speed and active_width codes,
// as ibstat and ibv_devinfo print it: lanes x per-lane data rate (SDR 2.5, DDR 5, QDR 10,
// FDR10 10, FDR 14, EDR 25, HDR 50, NDR 100, XDR 200). NDR 4x = 400, HDR 4x = 200.
// Returns 0 for a code it does not know.
double ib_rate_gbps(unsigned active_speed, unsigned active_width);
std::string_view ib_speed_name(unsigned active_speed);    // "NDR", ... or "unknown"
unsigned ib_width_lanes(unsigned active_width);           // 1, 2, 4, 8, 12 or 0
std::string_view ib_phys_state_name(unsigned phys_state); // "link_up", "polling", ...
unsigned ib_mtu_bytes(unsigned mtu_enum);                 // IBV_MTU_4096 (5) -> 4096, else 0

} // namespace railgauge
