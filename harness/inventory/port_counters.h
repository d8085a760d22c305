#pragma once
// RDMA NIC port counters from sysfs: every file of
//   <sysfs_root>/class/infiniband/<dev>/ports/<port>/counters/     (IBA PortCounters, ext.)
//   <sysfs_root>/class/infiniband/<dev>/ports/<port>/hw_counters/  (driver: mlx5 RoCE CC, ...)
// as {name: integer}. The rdma family reads them before and after a point and stores the
// deltas, so congestion (np_cnp_sent, rp_cnp_handled, np_ecn_marked_roce_packets), loss
// (out_of_sequence, packet_seq_err, local_ack_timeout_err) and link faults (link_downed,
// symbol_error) are attributed to the point that saw them.
//
// Caveat: port_xmit_data and port_rcv_data count 4-byte words (IBA), not bytes; the names are
// kept as the kernel spells them, the unit is the reader's to apply (x4 for bytes).
#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace railgauge {

using CounterMap = std::map<std::string, std::uint64_t>;
// Every statistic of a network device by name (harness/inventory/netdev_stats.h); throws
// std::runtime_error when they cannot be read.
using NetdevStatsReader = std::function<CounterMap(const std::string &ifname)>;

struct PortCounters {
  std::string device; // mlx5_0
  unsigned port = 0;  // 1-based, as in sysfs
  CounterMap counters;
  CounterMap hw_counters;
  // RoCE: the port's network device and its fabric counters (PFC pause, discards, ECN, CNP)
  // from the driver's ethtool statistics; empty for InfiniBand.
  std::string netdev;
  CounterMap netdev_counters;
  // Files that could not be read or do not hold one integer: "hw_counters/foo: <why>".
  std::vector<std::string> unreadable;
};

// One port. A missing counters/ or hw_counters/ directory gives an empty map (not an error).
// The netdev statistics come from `netdev_stats`, by default the live ethtool ioctl, which is
// used only when sysfs_root is this machine's /sys (a recorded tree names another machine's
// devices).
PortCounters read_port_counters(const std::string &sysfs_root, const std::string &device,
                                unsigned port, const NetdevStatsReader &netdev_stats = {});
// Every port of every device under <sysfs_root>/class/infiniband; none gives an empty list.
std::vector<PortCounters> read_all_port_counters(const std::string &sysfs_root);

// Every file of `dir` that holds one unsigned integer, as {file name: value}; the others are
// appended to `unreadable` as "<label>/<name>: <why>". A missing directory adds nothing.
void read_counter_dir(const std::string &dir, const std::string &label, CounterMap &out,
                      std::vector<std::string> &unreadable);

// after - before for every name in both maps. Signed: a negative delta means the counter was
// reset or wrapped between the reads (the caller decides whether that invalidates the point).
std::map<std::string, std::int64_t> counter_deltas(const CounterMap &before,
                                                   const CounterMap &after);
// Every map of one port: {"counters": {...}, "hw_counters": {...}, "netdev": name,
// "netdev_counters": {...}}.
nlohmann::json counter_deltas(const PortCounters &before, const PortCounters &after);

// Adds one point's deltas (the JSON above) into `total`, counter by counter in each of the
// three maps, and the device's name to total["devices"] once: the sum over many points (a pair
// matrix's pairs), shaped like one point's deltas so that rules read both the same way.
void add_counter_deltas(nlohmann::json &total, const nlohmann::json &deltas);
// ... the field of such a sum that names its devices (a pair matrix starts its sum with it empty)
inline constexpr const char *kCounterDeltasDevices = "devices";

nlohmann::json to_json(const PortCounters &counters);

} // namespace railgauge
