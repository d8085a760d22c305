#pragma once
// The data every offload point moves and checks: 32-bit words that differ from their neighbours
// and from one point's seed to the next, so a missing, stale or misplaced 16-byte vector shows
// as a wrong word. Host and device compute the same function. Plain C++17 for nvcc.
#include <cstdint>

#include "harness/host_device.h"

namespace railgauge::offload {

RAILGAUGE_HOST_DEVICE inline std::uint32_t pattern_word(std::uint64_t index, std::uint32_t seed) {
  // Fibonacci hashing of the index (Knuth's multiplicative constant), mixed with the seed.
  const auto low = static_cast<std::uint32_t>(index);
  const auto high = static_cast<std::uint32_t>(index >> 32);
  return (low + 1u) * 0x9E3779B1u ^ seed ^ (high * 0x85EBCA6Bu);
}

} // namespace railgauge::offload
