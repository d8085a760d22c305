#pragma once
// Blocking-free TCP plumbing for the baseline: an RAII socket, listen on the one address the
// user named (never INADDR_ANY unless asked), connect and accept with timeouts, and
// send/receive/exchange loops over poll() that give up after a deadline instead of hanging.
#include <cstddef>
#include <cstdint>
#include <string>

namespace railgauge::rdma {

class Socket {
public:
  Socket() = default;
  explicit Socket(int fd) : fd_(fd) {}
  Socket(Socket &&o) noexcept : fd_(o.fd_) { o.fd_ = -1; }
  Socket &operator=(Socket &&o) noexcept;
  Socket(const Socket &) = delete;
  Socket &operator=(const Socket &) = delete;
  ~Socket();
  int fd() const { return fd_; }
  explicit operator bool() const { return fd_ >= 0; }
  void shutdown_write();

private:
  int fd_ = -1;
};

// Listens on `address` (IPv4 or IPv6 literal) at an ephemeral port. Throws InputError when the
// address is not one of this machine's, BackendError otherwise.
Socket listen_on(const std::string &address);
// Where a listener waits, as one side announces it to the other through the Store:
// "10.0.0.5:41234", or "[fd00::1]:41234" for IPv6. Only address literals: the peer is never
// made to resolve a name.
struct PeerEndpoint {
  std::string address; // an IPv4 or IPv6 literal, without brackets
  std::uint16_t port = 0;
  std::string to_string() const;
  bool operator==(const PeerEndpoint &) const = default;
};
// Decodes what the peer announced; throws BackendError saying what is malformed (the text comes
// from another process, perhaps of another version: never trusted).
PeerEndpoint parse_peer_endpoint(const std::string &text);

// "address:port" ("[v6]:port") a peer can connect to.
std::string listening_endpoint(const Socket &listener, const std::string &address);
Socket accept_one(const Socket &listener, double timeout_s);
// `endpoint` as parse_peer_endpoint reads it.
Socket connect_to(const std::string &endpoint, double timeout_s);

// How a receive waits for data that has not arrived: asleep in poll(2) until the kernel wakes
// the thread, or spinning on recv() as a verbs latency test spins on its completion queue. A
// wakeup is a scheduler's and, in a virtual machine, the hypervisor's interrupt: on a 2-core KVM
// guest it turned a 2-byte round trip's p90 into several times its median.
enum class SocketWait { sleep, spin };

// Whole buffers, or BackendError at the deadline. recv_all returns false on a clean end of
// stream before the first byte (the peer closed between messages).
void send_all(const Socket &s, const void *data, std::size_t bytes, double timeout_s,
              SocketWait wait = SocketWait::sleep);
bool recv_all(const Socket &s, void *data, std::size_t bytes, double timeout_s,
              SocketWait wait = SocketWait::sleep);
// Whatever has arrived, 1 to `max_bytes` bytes, waiting for the first until the deadline;
// 0 on a clean end of stream.
std::size_t recv_some(const Socket &s, void *data, std::size_t max_bytes, double timeout_s);
// Sends and receives at once (bidirectional streaming without a second thread).
void exchange(const Socket &s, const void *out, std::size_t out_bytes, void *in,
              std::size_t in_bytes, double timeout_s, SocketWait wait = SocketWait::sleep);

} // namespace railgauge::rdma
