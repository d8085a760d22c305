#pragma once
// The Ethernet side of a RoCE port: the driver's own statistics of its network device, as
// `ethtool -S` prints them (SIOCETHTOOL ETHTOOL_GSSET_INFO / GSTRINGS / GSTATS, which need no
// privilege). PFC pause frames and buffer drops are counted only there: mlx5 names them
// rx_prio3_pause, tx_prio3_pause_duration, rx_discards_phy, rx_out_of_buffer, ...
//
// Only counters a fabric engineer reads after a slow point are kept (is_fabric_counter): a NIC
// has hundreds (per-queue packets and bytes), which would drown the record.
#include <string>
#include <vector>

#include "harness/inventory/port_counters.h"

namespace railgauge {

// The network device behind an RDMA port: gid_attrs/ndevs/0 of the port (RoCE), else the first
// entry of the device's net/ directory; "" when there is none (InfiniBand).
std::string rdma_port_netdev(const std::string &sysfs_root, const std::string &device,
                             unsigned port);

// Names with pause, pfc, discard, drop, out_of_buffer, ecn, cnp or congest in them (any case).
bool is_fabric_counter(const std::string &name);

// Reads every statistic of a network device: {name: value}, or throws std::runtime_error with
// the ioctl and its errno text. A NetdevStatsReader (port_counters.h), so tests can stand in
// for a NIC.
CounterMap read_ethtool_stats(const std::string &ifname);

// The fabric counters of `ifname` through `reader`; a failure lands in `unreadable`.
CounterMap read_fabric_counters(const std::string &ifname, const NetdevStatsReader &reader,
                                std::vector<std::string> &unreadable);

} // namespace railgauge
