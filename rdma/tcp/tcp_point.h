#pragma once
// The TCP baseline: the rdma family's patterns over sockets (latency ping-pong, bandwidth
// streaming, bidirectional), for comparison with verbs and for machines without RDMA. Same
// roles as verbs_point.h: the client (rank 0, or this process in loopback) measures through
// RunContext::measure(), the server echoes, acknowledges or streams back until the client
// closes. Every socket binds to the one address or interface the user names.
#include <atomic>
#include <optional>
#include <string>
#include <utility>

#include <nlohmann/json.hpp>

#include "harness/record.h"
#include "harness/run_context.h"
#include "harness/topology.h"
#include "rdma/data_pattern.h"
#include "rdma/tcp/tcp_socket.h"
#include "rdma/verbs_pattern.h"

namespace railgauge::rdma {

inline constexpr std::size_t kTcpMaxMessageBytes = std::size_t{64} << 20;

struct TcpPointSpec {
  Pattern pattern = Pattern::latency;
  std::size_t size_bytes = 8;
  std::string bind_address = "127.0.0.1"; // an IPv4/IPv6 literal or an interface name
  std::string mode = "loopback";          // "loopback" | "ranks"
  // How the two ends wait for each message or acknowledgement (tcp_socket.h). Spinning needs each
  // end on a CPU of its own, else the point is waived (spin_refusal).
  SocketWait wait = SocketWait::sleep;
  std::string point_id;
  double timeout_s = 120;
  BeforeDataCheck before_data_check; // test hook (rdma/data_pattern.h)
};

// An address literal as is; an interface name ("eth0") as its first IPv4 (else IPv6)
// address. Throws InputError naming the interfaces that exist.
std::string resolve_bind_address(const std::string &address_or_interface);

// The processing units the two ends of a loopback point are bound to, on two physical cores of
// the first NUMA node that has two among the CPUs this process was given; none with fewer (or a
// topology read from a file). Threads
// left to the scheduler shared a core for some calls and not for others: on a 2-core VM the
// 2-byte ping-pong took 19 us on one core and 100-140 us across two (the wakeup is an
// interrupt through the hypervisor), and unpinned its p90 was 6 to 10 times its median. Two
// cores stand for two hosts, whose ends never share one. The record says which it used
// (derived params client_pu, server_pu).
std::optional<std::pair<unsigned, unsigned>> loopback_end_pus(const Topology &topology);

// Why a point may not spin its ends (wait=spin): each spinning end needs a CPU of its
// own, two per rank in loopback, one per rank in mode=ranks, times the ranks of this host that
// share this process's CPUs (launcher_ranks_on_this_host, cpus_given); on fewer, each end spins
// through the time slice the other needs to answer. nullopt when it may, or does not spin.
std::optional<std::string> spin_refusal(const Topology &topology, const TcpPointSpec &spec);
std::optional<std::string> tcp_waive_reason(const RunContext &ctx, const TcpPointSpec &spec);
Outcome run_tcp_point(RunContext &ctx, const TcpPointSpec &spec);

// One pair, either side, through `store` under `prefix` (the pair matrix runs many at once).
// The client returns the Outcome of its measurement; the server returns
// {"messages":..,"problems":[..]} or {"error":..}.
Outcome tcp_client(RunContext &ctx, const TcpPointSpec &spec, Store &store,
                   const std::string &prefix);
nlohmann::json tcp_server(const TcpPointSpec &spec, Store &store, const std::string &prefix,
                          const std::atomic<bool> &abort);

} // namespace railgauge::rdma
