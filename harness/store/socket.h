#pragma once
// The few socket operations the TCP store needs, with an owner for every descriptor and a
// deadline on every blocking step.
#include <chrono>
#include <cstdint>
#include <string>
#include <string_view>

namespace railgauge {

using SteadyClock = std::chrono::steady_clock;

// Owns a file descriptor; closes it once.
class UniqueFd {
public:
  UniqueFd() = default;
  explicit UniqueFd(int fd) : fd_(fd) {}
  UniqueFd(UniqueFd &&other) noexcept : fd_(other.release()) {}
  UniqueFd &operator=(UniqueFd &&other) noexcept;
  UniqueFd(const UniqueFd &) = delete;
  UniqueFd &operator=(const UniqueFd &) = delete;
  ~UniqueFd() { reset(); }

  int get() const { return fd_; }
  explicit operator bool() const { return fd_ >= 0; }
  int release() {
    const int fd = fd_;
    fd_ = -1;
    return fd;
  }
  void reset(int fd = -1);

private:
  int fd_ = -1;
};

// HOST:PORT of a store. HOST is a name or a numeric address ("[::1]" for IPv6 in a URL).
struct TcpEndpoint {
  std::string host;
  std::uint16_t port = 0;
  // "host:port", or "[v6]:port".
  std::string to_string() const;
};

// Parses "tcp://HOST:PORT" (PORT 0..65535); throws InputError naming `where` otherwise.
TcpEndpoint parse_tcp_url(std::string_view url, const std::string &where);

// A listening socket bound to exactly the address `host` resolves to (never to every interface
// unless the caller says 0.0.0.0 or ::), port 0 for one the kernel picks. Throws BackendError.
UniqueFd listen_on(const TcpEndpoint &endpoint);
// The port a bound socket got.
std::uint16_t bound_port(int fd);

// Connects, retrying refused or unreachable attempts until `deadline` (the server may not be
// listening yet). Throws BackendError saying what the last attempt got.
UniqueFd connect_until(const TcpEndpoint &endpoint, SteadyClock::time_point deadline);

// Sends every byte before `deadline`; false with `error` set otherwise.
bool send_all(int fd, std::string_view bytes, SteadyClock::time_point deadline, std::string &error);
// Appends what arrives (at most `max_bytes`) before `deadline` to `buffer`. Returns the byte
// count, 0 when the peer closed, -1 on timeout or error (with `error` set).
// Receives what arrives (at most `max_bytes`) before `deadline` into `data`. Returns as
// receive_some does.
long receive_into(int fd, char *data, std::size_t max_bytes, SteadyClock::time_point deadline,
                  std::string &error);
long receive_some(int fd, std::string &buffer, std::size_t max_bytes,
                  SteadyClock::time_point deadline, std::string &error);

void set_nonblocking(int fd);

} // namespace railgauge
