#include "harness/store/socket.h"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <memory>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <thread>
#include <unistd.h>

#include <fmt/format.h>

#include "harness/error.h"

namespace railgauge {
namespace {

struct AddrinfoDeleter {
  void operator()(addrinfo *a) const { freeaddrinfo(a); }
};
using AddrinfoList = std::unique_ptr<addrinfo, AddrinfoDeleter>;

AddrinfoList resolve(const TcpEndpoint &endpoint, bool passive, std::string &error) {
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  hints.ai_flags = AI_NUMERICSERV | (passive ? AI_PASSIVE : 0);
  addrinfo *found = nullptr;
  const std::string port = std::to_string(endpoint.port);
  const int rc = getaddrinfo(endpoint.host.c_str(), port.c_str(), &hints, &found);
  if (rc != 0) {
    error = fmt::format("cannot resolve '{}': {}", endpoint.host, gai_strerror(rc));
    return nullptr;
  }
  return AddrinfoList(found);
}

int milliseconds_until(SteadyClock::time_point deadline) {
  const auto left =
      std::chrono::duration_cast<std::chrono::milliseconds>(deadline - SteadyClock::now()).count();
  return static_cast<int>(std::clamp<long long>(left, 0, 1 << 30));
}

// One connection attempt, bounded by `deadline`.
UniqueFd try_connect(const addrinfo &a, SteadyClock::time_point deadline, std::string &error) {
  UniqueFd fd(::socket(a.ai_family, a.ai_socktype | SOCK_CLOEXEC | SOCK_NONBLOCK, a.ai_protocol));
  if (!fd) {
    error = fmt::format("socket: {}", std::strerror(errno));
    return {};
  }
  if (::connect(fd.get(), a.ai_addr, a.ai_addrlen) != 0) {
    if (errno != EINPROGRESS) {
      error = std::strerror(errno);
      return {};
    }
    pollfd p{fd.get(), POLLOUT, 0};
    const int n = ::poll(&p, 1, milliseconds_until(deadline));
    if (n <= 0) {
      error = n == 0 ? "connection attempt timed out" : std::strerror(errno);
      return {};
    }
    int so_error = 0;
    socklen_t len = sizeof so_error;
    ::getsockopt(fd.get(), SOL_SOCKET, SO_ERROR, &so_error, &len);
    if (so_error != 0) {
      error = std::strerror(so_error);
      return {};
    }
  }
  const int one = 1;
  ::setsockopt(fd.get(), IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
  return fd;
}

} // namespace

UniqueFd &UniqueFd::operator=(UniqueFd &&other) noexcept {
  if (this != &other)
    reset(other.release());
  return *this;
}

void UniqueFd::reset(int fd) {
  if (fd_ >= 0)
    ::close(fd_);
  fd_ = fd;
}

std::string TcpEndpoint::to_string() const {
  if (host.find(':') != std::string::npos)
    return fmt::format("[{}]:{}", host, port);
  return fmt::format("{}:{}", host, port);
}

TcpEndpoint parse_tcp_url(std::string_view url, const std::string &where) {
  const std::string fix = "write tcp://HOST:PORT, e.g. tcp://10.0.0.1:29500 or tcp://[fd00::1]:0";
  constexpr std::string_view scheme = "tcp://";
  if (url.substr(0, scheme.size()) != scheme)
    throw InputError(fmt::format("'{}' is not a tcp:// store address", url), where, fix);
  std::string_view rest = url.substr(scheme.size());
  std::string_view host, port;
  if (!rest.empty() && rest.front() == '[') {
    const auto close = rest.find(']');
    if (close == std::string_view::npos || close + 1 >= rest.size() || rest[close + 1] != ':')
      throw InputError(fmt::format("'{}': an IPv6 address needs [ADDR]:PORT", url), where, fix);
    host = rest.substr(1, close - 1);
    port = rest.substr(close + 2);
  } else {
    const auto colon = rest.rfind(':');
    if (colon == std::string_view::npos)
      throw InputError(fmt::format("'{}' has no :PORT", url), where, fix);
    host = rest.substr(0, colon);
    port = rest.substr(colon + 1);
  }
  if (host.empty())
    throw InputError(fmt::format("'{}' has no host", url), where, fix);
  if (port.empty() || port.size() > 5 ||
      !std::all_of(port.begin(), port.end(), [](char c) { return c >= '0' && c <= '9'; }) ||
      std::stoul(std::string(port)) > 65535)
    throw InputError(fmt::format("'{}': port '{}' is not a number in 0..65535", url, port), where,
                     fix);
  return {std::string(host), static_cast<std::uint16_t>(std::stoul(std::string(port)))};
}

UniqueFd listen_on(const TcpEndpoint &endpoint) {
  std::string error;
  // Not passive: the host names the one address to listen on.
  const auto list = resolve(endpoint, false, error);
  if (!list)
    throw BackendError(fmt::format("store: cannot listen on {}: {}", endpoint.to_string(), error));
  for (const addrinfo *a = list.get(); a; a = a->ai_next) {
    UniqueFd fd(::socket(a->ai_family, a->ai_socktype | SOCK_CLOEXEC, a->ai_protocol));
    if (!fd) {
      error = std::strerror(errno);
      continue;
    }
    const int one = 1;
    ::setsockopt(fd.get(), SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    if (::bind(fd.get(), a->ai_addr, a->ai_addrlen) != 0 || ::listen(fd.get(), 1024) != 0) {
      error = std::strerror(errno);
      continue;
    }
    return fd;
  }
  throw BackendError(fmt::format("store: cannot listen on {}: {}", endpoint.to_string(), error));
}

std::uint16_t bound_port(int fd) {
  sockaddr_storage addr{};
  socklen_t len = sizeof addr;
  if (::getsockname(fd, reinterpret_cast<sockaddr *>(&addr), &len) != 0)
    throw BackendError(fmt::format("store: getsockname: {}", std::strerror(errno)));
  if (addr.ss_family == AF_INET6)
    return ntohs(reinterpret_cast<sockaddr_in6 *>(&addr)->sin6_port);
  return ntohs(reinterpret_cast<sockaddr_in *>(&addr)->sin_port);
}

UniqueFd connect_until(const TcpEndpoint &endpoint, SteadyClock::time_point deadline) {
  std::string error;
  auto pause = std::chrono::milliseconds(20);
  while (true) {
    if (const auto list = resolve(endpoint, false, error)) {
      for (const addrinfo *a = list.get(); a; a = a->ai_next)
        if (auto fd = try_connect(*a, deadline, error))
          return fd;
    }
    if (SteadyClock::now() + pause >= deadline)
      break;
    std::this_thread::sleep_for(pause);
    pause = std::min(pause * 2, std::chrono::milliseconds(1000));
  }
  throw BackendError(fmt::format("store: cannot connect to {}: {}", endpoint.to_string(), error));
}

bool send_all(int fd, std::string_view bytes, SteadyClock::time_point deadline,
              std::string &error) {
  while (!bytes.empty()) {
    const ssize_t n = ::send(fd, bytes.data(), bytes.size(), MSG_NOSIGNAL | MSG_DONTWAIT);
    if (n > 0) {
      bytes.remove_prefix(static_cast<std::size_t>(n));
      continue;
    }
    if (n < 0 && errno == EINTR)
      continue;
    if (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK) {
      error = std::strerror(errno);
      return false;
    }
    pollfd p{fd, POLLOUT, 0};
    if (::poll(&p, 1, milliseconds_until(deadline)) <= 0) {
      error = "send timed out";
      return false;
    }
  }
  return true;
}

long receive_into(int fd, char *data, std::size_t max_bytes, SteadyClock::time_point deadline,
                  std::string &error) {
  while (true) {
    pollfd p{fd, POLLIN, 0};
    const int ready = ::poll(&p, 1, milliseconds_until(deadline));
    if (ready < 0 && errno == EINTR)
      continue;
    if (ready <= 0) {
      error = ready == 0 ? "timed out" : std::strerror(errno);
      return -1;
    }
    const ssize_t n = ::recv(fd, data, max_bytes, MSG_DONTWAIT);
    if (n < 0 && (errno == EINTR || errno == EAGAIN || errno == EWOULDBLOCK))
      continue;
    if (n < 0) {
      error = std::strerror(errno);
      return -1;
    }
    return static_cast<long>(n);
  }
}

long receive_some(int fd, std::string &buffer, std::size_t max_bytes,
                  SteadyClock::time_point deadline, std::string &error) {
  const std::size_t old = buffer.size();
  buffer.resize(old + max_bytes);
  const long n = receive_into(fd, buffer.data() + old, max_bytes, deadline, error);
  buffer.resize(old + (n > 0 ? static_cast<std::size_t>(n) : 0));
  return n;
}

void set_nonblocking(int fd) {
  const int flags = ::fcntl(fd, F_GETFL, 0);
  ::fcntl(fd, F_SETFL, flags | O_NONBLOCK);
}

} // namespace railgauge
