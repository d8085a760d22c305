#pragma once
// The default size sweep of the offload benchmarks, bounded by the host memory they may lock.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace railgauge::offload {

inline constexpr std::int64_t kFirstSizeBytes = std::int64_t{4} << 10; // 4 KiB
inline constexpr std::int64_t kLastSizeBytes = std::int64_t{4} << 30;  // 4 GiB
// Pinned host buffers may take at most this share of MemAvailable: locked pages cannot be
// swapped or reclaimed, and the rest of the node (and the other GPUs' points) needs memory too.
inline constexpr double kMaxHostMemoryShare = 0.5;

// MemAvailable from /proc/meminfo text ("MemAvailable:   123456 kB"), in bytes; nullopt when the
// line is missing or malformed.
std::optional<std::uint64_t> parse_mem_available_bytes(std::string_view meminfo);
// /proc/meminfo of this machine, parsed as above.
std::optional<std::uint64_t>
host_available_bytes(const std::string &meminfo_path = "/proc/meminfo");

// Powers of two from 4 KiB to 4 GiB, cut where `host_buffers` buffers of the size would exceed
// kMaxHostMemoryShare of `available_bytes` (always at least the first size). Without a figure
// (nullopt), the full 4 KiB..4 GiB, so that waived records still carry the points.
std::vector<std::int64_t> offload_default_sizes_bytes(std::optional<std::uint64_t> available_bytes,
                                                      int host_buffers);

} // namespace railgauge::offload
