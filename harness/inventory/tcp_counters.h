#pragma once
// What the kernel counts about TCP and about one network device, read before and after a TCP
// point (the rdma family's TCP baseline) so that retransmissions, resets and device errors are
// attributed to the point that saw them: TCP over a bad cable or a flapping port keeps working,
// only slower, and these counters are where it shows.
//   <proc_root>/net/snmp     "Tcp:" header and value lines: RetransSegs, InErrs, OutRsts, ...
//   <proc_root>/net/netstat  "TcpExt:" lines, of which the loss and timeout counters are kept
//   <sysfs_root>/class/net/<netdev>/statistics/  rx_errors, rx_crc_errors, tx_dropped, ...
// The TCP counters are the whole host's (every connection), the device statistics the whole
// device's: a busy host adds its own traffic, which is why the record names them host_ and
// netdev_, not the point's.
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "harness/inventory/port_counters.h"

namespace railgauge {

struct TcpCounters {
  CounterMap tcp;     // every non-negative field of /proc/net/snmp's Tcp: line
  CounterMap tcp_ext; // kTcpExtKept of /proc/net/netstat's TcpExt: line
  std::string netdev; // "" when the address is on no device of this machine
  CounterMap netdev_stats;
  std::vector<std::string> unreadable; // "net/snmp: <why>", "statistics/<name>: <why>"
};

// The TcpExt fields kept: retransmissions, losses and timeouts.
inline const std::vector<std::string> kTcpExtKept = {
    "TCPLostRetransmit", "TCPTimeouts",    "TCPFastRetrans",  "TCPSlowStartRetrans",
    "TCPSynRetrans",     "TCPRetransFail", "TCPSackRecovery", "TCPAbortOnTimeout"};

// `netdev` may be empty (no device statistics). Missing files are reported in `unreadable`.
TcpCounters read_tcp_counters(const std::string &proc_root, const std::string &sysfs_root,
                              const std::string &netdev);

// The name of the device holding `address` (an IPv4 or IPv6 literal) on this machine, or "".
std::string netdev_of_address(const std::string &address);

// {"host_tcp": {...}, "host_tcp_ext": {...}, "netdev": name, "netdev_statistics": {...}} of
// after - before, and "unreadable" when either read had problems.
nlohmann::json counter_deltas(const TcpCounters &before, const TcpCounters &after);

} // namespace railgauge
