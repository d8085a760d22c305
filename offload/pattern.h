#pragma once
// The data every offload point moves and checks: 32-bit words that differ from their neighbours
// and from one point's seed to the next, so a missing, stale or misplaced 16-byte vector shows
// as a wrong word. Host and device compute the same function. Plain C++17 for nvcc.
#include <cstdint>

#if defined(__CUDACC__)
#define RAILGAUGE_HOST_DEVICE __host__ __device__
#else
#define RAILGAUGE_HOST_DEVICE
#endif

namespace railgauge::offload {

RAILGAUGE_HOST_DEVICE inline std::uint32_t pattern_word(std::uint64_t index, std::uint32_t seed) {
  // Fibonacci hashing of the index (Knuth's multiplicative constant), mixed with the seed.
  const auto low = static_cast<std::uint32_t>(index);
  const auto high = static_cast<std::uint32_t>(index >> 32);
  return (low + 1u) * 0x9E3779B1u ^ seed ^ (high * 0x85EBCA6Bu);
}

// A GEMM input element: -1, 0 or 1, so that every product and every sum of K of them is an exact
// integer in fp32 (|sum| <= K < 2^24) and the result is checked with ==.
RAILGAUGE_HOST_DEVICE inline int gemm_input_value(std::uint64_t index, std::uint32_t seed) {
  return static_cast<int>(pattern_word(index, seed) % 3u) - 1;
}

} // namespace railgauge::offload
