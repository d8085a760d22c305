#include "rdma/tcp/tcp_socket.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <charconv>
#include <chrono>
#include <cstring>

#include <fmt/format.h>

#include "harness/error.h"
#include "harness/store/descriptor_limit.h"

namespace railgauge::rdma {
namespace {

using Clock = std::chrono::steady_clock;

[[noreturn]] void fail(const std::string &what) {
  if (is_descriptor_exhaustion(errno))
    throw DescriptorsExhausted(descriptor_exhaustion_text(what, errno));
  throw BackendError(fmt::format("{}: {}", what, std::strerror(errno)));
}

struct Address {
  sockaddr_storage storage{};
  socklen_t length = 0;
};

Address parse_address(const std::string &host, std::uint16_t port) {
  Address a;
  auto *v4 = reinterpret_cast<sockaddr_in *>(&a.storage);
  auto *v6 = reinterpret_cast<sockaddr_in6 *>(&a.storage);
  if (inet_pton(AF_INET, host.c_str(), &v4->sin_addr) == 1) {
    v4->sin_family = AF_INET;
    v4->sin_port = htons(port);
    a.length = sizeof *v4;
  } else if (inet_pton(AF_INET6, host.c_str(), &v6->sin6_addr) == 1) {
    v6->sin6_family = AF_INET6;
    v6->sin6_port = htons(port);
    a.length = sizeof *v6;
  } else {
    throw InputError(fmt::format("'{}' is not an IPv4 or IPv6 address", host), "axis bind_address",
                     "give the address of the interface to test, e.g. 127.0.0.1 or 10.0.0.5");
  }
  return a;
}

void set_nonblocking(int fd) {
  const int flags = fcntl(fd, F_GETFL, 0);
  if (flags < 0 || fcntl(fd, F_SETFL, flags | O_NONBLOCK) < 0)
    fail("fcntl(O_NONBLOCK)");
}

void tune(int fd) {
  const int one = 1;
  setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one); // ping-pong: no Nagle delay
  set_nonblocking(fd);
}

// Waits until `fd` is ready for `events`; throws at the deadline.
void wait_ready(int fd, short events, Clock::time_point deadline, const char *what) {
  while (true) {
    const auto left =
        std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now());
    if (left.count() <= 0)
      throw BackendError(fmt::format("TCP {}: timed out", what));
    pollfd p{fd, events, 0};
    const int rc = ::poll(&p, 1, static_cast<int>(std::min<long long>(left.count(), 1000)));
    if (rc > 0)
      return;
    if (rc < 0 && errno != EINTR)
      fail(std::string("poll during ") + what);
  }
}

Clock::time_point deadline_in(double s) {
  return Clock::now() +
         std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(s));
}

} // namespace

Socket &Socket::operator=(Socket &&o) noexcept {
  if (this != &o) {
    if (fd_ >= 0)
      ::close(fd_);
    fd_ = o.fd_;
    o.fd_ = -1;
  }
  return *this;
}

Socket::~Socket() {
  if (fd_ >= 0)
    ::close(fd_);
}

void Socket::shutdown_write() {
  if (fd_ >= 0)
    ::shutdown(fd_, SHUT_WR);
}

Socket listen_on(const std::string &address) {
  const Address a = parse_address(address, 0);
  Socket s(::socket(a.storage.ss_family, SOCK_STREAM | SOCK_CLOEXEC, 0));
  if (!s)
    fail("socket");
  const int one = 1;
  setsockopt(s.fd(), SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
  if (::bind(s.fd(), reinterpret_cast<const sockaddr *>(&a.storage), a.length) != 0) {
    if (errno == EADDRNOTAVAIL)
      throw InputError(fmt::format("{} is not an address of this machine", address),
                       "axis bind_address", "use an address `ip addr` shows, e.g. 127.0.0.1");
    fail("bind " + address);
  }
  if (::listen(s.fd(), 16) != 0)
    fail("listen");
  set_nonblocking(s.fd());
  return s;
}

std::string PeerEndpoint::to_string() const {
  return address.find(':') != std::string::npos ? fmt::format("[{}]:{}", address, port)
                                                : fmt::format("{}:{}", address, port);
}

PeerEndpoint parse_peer_endpoint(const std::string &text) {
  const auto malformed = [&](const std::string &why) {
    return BackendError(fmt::format("malformed endpoint '{}' from the peer: {}", text, why));
  };
  const auto colon = text.rfind(':');
  if (colon == std::string::npos)
    throw malformed("no ':PORT'");
  std::string address = text.substr(0, colon);
  const bool bracketed = address.size() >= 2 && address.front() == '[' && address.back() == ']';
  if (bracketed)
    address = address.substr(1, address.size() - 2);
  const std::string port_text = text.substr(colon + 1);
  unsigned port = 0;
  const auto [end, ec] =
      std::from_chars(port_text.data(), port_text.data() + port_text.size(), port);
  if (port_text.empty() || ec != std::errc() || end != port_text.data() + port_text.size() ||
      port == 0 || port > 65535)
    throw malformed(fmt::format("port '{}' is not a number in 1..65535", port_text));
  in6_addr scratch{};
  const int family = bracketed ? AF_INET6 : AF_INET;
  if (address.find('\0') != std::string::npos || inet_pton(family, address.c_str(), &scratch) != 1)
    throw malformed(fmt::format(
        "'{}' is not {}", address,
        bracketed ? "an IPv6 address" : "an IPv4 address (IPv6 goes in brackets: [ADDRESS]:PORT)"));
  return {address, static_cast<std::uint16_t>(port)};
}

std::string listening_endpoint(const Socket &listener, const std::string &address) {
  sockaddr_storage st{};
  socklen_t len = sizeof st;
  if (::getsockname(listener.fd(), reinterpret_cast<sockaddr *>(&st), &len) != 0)
    fail("getsockname");
  const std::uint16_t port = st.ss_family == AF_INET
                                 ? ntohs(reinterpret_cast<sockaddr_in *>(&st)->sin_port)
                                 : ntohs(reinterpret_cast<sockaddr_in6 *>(&st)->sin6_port);
  return PeerEndpoint{address, port}.to_string();
}

Socket accept_one(const Socket &listener, double timeout_s) {
  const auto deadline = deadline_in(timeout_s);
  while (true) {
    wait_ready(listener.fd(), POLLIN, deadline, "accept");
    Socket s(::accept4(listener.fd(), nullptr, nullptr, SOCK_CLOEXEC));
    if (s) {
      tune(s.fd());
      return s;
    }
    if (errno != EAGAIN && errno != EINTR)
      fail("accept");
  }
}

Socket connect_to(const std::string &endpoint, double timeout_s) {
  const PeerEndpoint peer = parse_peer_endpoint(endpoint);
  const Address a = parse_address(peer.address, peer.port);
  Socket s(::socket(a.storage.ss_family, SOCK_STREAM | SOCK_CLOEXEC, 0));
  if (!s)
    fail("socket");
  tune(s.fd());
  if (::connect(s.fd(), reinterpret_cast<const sockaddr *>(&a.storage), a.length) != 0) {
    if (errno != EINPROGRESS)
      fail("connect " + endpoint);
    wait_ready(s.fd(), POLLOUT, deadline_in(timeout_s), "connect");
    int err = 0;
    socklen_t len = sizeof err;
    getsockopt(s.fd(), SOL_SOCKET, SO_ERROR, &err, &len);
    if (err != 0) {
      errno = err;
      fail("connect " + endpoint);
    }
  }
  return s;
}

void send_all(const Socket &s, const void *data, std::size_t bytes, double timeout_s,
              SocketWait wait) {
  exchange(s, data, bytes, nullptr, 0, timeout_s, wait);
}

bool recv_all(const Socket &s, void *data, std::size_t bytes, double timeout_s, SocketWait wait) {
  const auto deadline = deadline_in(timeout_s);
  auto *p = static_cast<std::uint8_t *>(data);
  std::size_t done = 0;
  while (done < bytes) {
    const ssize_t n = ::recv(s.fd(), p + done, bytes - done, 0);
    if (n > 0) {
      done += static_cast<std::size_t>(n);
    } else if (n == 0) {
      if (done == 0)
        return false;
      throw BackendError(fmt::format("TCP peer closed mid-message ({} of {} bytes)", done, bytes));
    } else if (errno != EAGAIN && errno != EINTR) {
      fail("recv");
    } else if (wait == SocketWait::sleep) {
      wait_ready(s.fd(), POLLIN, deadline, "receive");
    } else if (Clock::now() >= deadline) {
      throw BackendError("TCP receive: timed out");
    }
  }
  return true;
}

std::size_t recv_some(const Socket &s, void *data, std::size_t max_bytes, double timeout_s) {
  const auto deadline = deadline_in(timeout_s);
  while (true) {
    const ssize_t n = ::recv(s.fd(), data, max_bytes, 0);
    if (n >= 0)
      return static_cast<std::size_t>(n);
    if (errno != EAGAIN && errno != EINTR)
      fail("recv");
    wait_ready(s.fd(), POLLIN, deadline, "receive");
  }
}

void exchange(const Socket &s, const void *out, std::size_t out_bytes, void *in,
              std::size_t in_bytes, double timeout_s, SocketWait wait) {
  const auto deadline = deadline_in(timeout_s);
  const auto *o = static_cast<const std::uint8_t *>(out);
  auto *i = static_cast<std::uint8_t *>(in);
  std::size_t sent = 0, got = 0;
  while (sent < out_bytes || got < in_bytes) {
    bool progress = false;
    if (sent < out_bytes) {
      const ssize_t n = ::send(s.fd(), o + sent, out_bytes - sent, MSG_NOSIGNAL);
      if (n > 0) {
        sent += static_cast<std::size_t>(n);
        progress = true;
      } else if (n < 0 && errno != EAGAIN && errno != EINTR) {
        fail("send");
      }
    }
    if (got < in_bytes) {
      const ssize_t n = ::recv(s.fd(), i + got, in_bytes - got, 0);
      if (n > 0) {
        got += static_cast<std::size_t>(n);
        progress = true;
      } else if (n == 0) {
        throw BackendError(fmt::format("TCP peer closed ({} of {} bytes received)", got, in_bytes));
      } else if (errno != EAGAIN && errno != EINTR) {
        fail("recv");
      }
    }
    if (progress)
      continue;
    if (wait == SocketWait::spin) {
      if (Clock::now() >= deadline)
        throw BackendError("TCP exchange: timed out");
    } else {
      wait_ready(
          s.fd(),
          static_cast<short>((sent < out_bytes ? POLLOUT : 0) | (got < in_bytes ? POLLIN : 0)),
          deadline, "exchange");
    }
  }
}

} // namespace railgauge::rdma
