#pragma once
// Who may connect to a TCP baseline server: the client that the run's Store sent. Each pair's
// server draws a fresh random token and announces it beside its endpoint through the Store (whose
// connections carry the run token); a connection counts only once it presents that token and the
// baseline's protocol version in the same hello as the TCP store's (harness/store/store_wire.h,
// bounded and fuzzed there). Anything else (a port scanner, a stale client of an earlier point,
// another version, a peer that connects and says nothing) is answered with the reason, closed,
// and counted, and the server goes on waiting for its client until the point's deadline.
#include <atomic>
#include <cstdint>
#include <string>
#include <vector>

#include "rdma/tcp/tcp_socket.h"

namespace railgauge::rdma {

// Bumped whenever what the two sides send each other after the hello changes.
inline constexpr std::uint16_t kTcpBaselineVersion = 1;
// How long an accepted connection may take to send its hello.
inline constexpr double kTcpHelloTimeoutS = 5;

// 32 hex digits from std::random_device.
std::string new_pair_token();

// Client side: sends the hello and waits for the answer; throws BackendError with the server's
// reason when it refuses.
void send_tcp_hello(const Socket &s, const std::string &token, int rank, double timeout_s,
                    std::uint16_t version = kTcpBaselineVersion);

// Server side: the first connection within `timeout_s` that presents `token` and
// kTcpBaselineVersion. Every other connection gets a refusal saying why and is closed; its
// reason is appended to `refused`. Throws BackendError at the deadline (naming the refusals)
// or, after a refusal, when `abort` is set.
Socket accept_tcp_client(const Socket &listener, const std::string &token, double timeout_s,
                         const std::atomic<bool> &abort, std::vector<std::string> &refused);

} // namespace railgauge::rdma
