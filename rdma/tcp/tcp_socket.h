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
// "address:port" ("[v6]:port") a peer can connect to.
std::string listening_endpoint(const Socket &listener, const std::string &address);
Socket accept_one(const Socket &listener, double timeout_s);
Socket connect_to(const std::string &endpoint, double timeout_s);

// Whole buffers, or BackendError at the deadline. recv_all returns false on a clean end of
// stream before the first byte (the peer closed between messages).
void send_all(const Socket &s, const void *data, std::size_t bytes, double timeout_s);
bool recv_all(const Socket &s, void *data, std::size_t bytes, double timeout_s);
// Sends and receives at once (bidirectional streaming without a second thread).
void exchange(const Socket &s, const void *out, std::size_t out_bytes, void *in,
              std::size_t in_bytes, double timeout_s);

} // namespace railgauge::rdma
