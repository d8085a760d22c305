// A connection to the store that never sends a byte: what a port scanner, a health check or a
// stuck peer leaves on rank 0's store (store_load_test.cpp, store_exhaustion_test.cpp).
#pragma once

#include <cstdint>
#include <netinet/in.h>
#include <sys/socket.h>

#include "harness/store/socket.h"

namespace railgauge {

// The connection, or an empty one when socket() or connect() failed (errno says why).
inline UniqueFd silent_connection(std::uint16_t port) {
  UniqueFd fd(::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0));
  if (!fd)
    return fd;
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(port);
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (::connect(fd.get(), reinterpret_cast<sockaddr *>(&addr), sizeof addr) != 0)
    fd.reset();
  return fd;
}

} // namespace railgauge
