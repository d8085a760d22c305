#pragma once
// File descriptors are one budget per process (RLIMIT_NOFILE, often 1024): rank 0's store
// server, the benchmarks' sockets and the records file all draw on it. A call that fails with
// EMFILE (this process) or ENFILE (this host) failed here, never because of a peer, and its
// message says so instead of naming the rank at the other end.
#include <cstddef>
#include <string>

#include "harness/error.h"

namespace railgauge {

// RLIMIT_NOFILE's soft limit; 1024 when it cannot be read, the largest size_t when unlimited.
std::size_t descriptor_limit();

// EMFILE or ENFILE.
bool is_descriptor_exhaustion(int err);

// "socket: Too many open files: this process has used up its 1024 file descriptors
// (RLIMIT_NOFILE, `ulimit -n`); nothing at the other end is at fault".
std::string descriptor_exhaustion_text(const std::string &call, int err);

// A call failed for want of descriptors here (is_descriptor_exhaustion).
class DescriptorsExhausted : public BackendError {
public:
  using BackendError::BackendError;
};

} // namespace railgauge
