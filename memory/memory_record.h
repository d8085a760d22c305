#pragma once
// The memory family's record contract (see gemm/gemm_record.h): keys, and the parameter and
// metric names that the family writes and analysis and the shipped rules read. The bandwidth
// metrics are the measurement core's (harness/metric_names.h).
#include <array>

#include "harness/metric_names.h"

namespace railgauge::memory::record {

inline constexpr const char *kFamily = "memory";
inline constexpr const char *kCategory = "memory";

// Keys: HBM kernels on a GPU, host DRAM kernels on a NUMA node
inline constexpr const char *kHbmCopy = "memory.hbm_copy";
inline constexpr const char *kHbmRead = "memory.hbm_read";
inline constexpr const char *kHbmWrite = "memory.hbm_write";
inline constexpr const char *kHbmTriad = "memory.hbm_triad";
inline constexpr const char *kHbmMemcpyD2d = "memory.hbm_memcpy_d2d";
inline constexpr const char *kHostCopy = "memory.host_copy";
inline constexpr const char *kHostRead = "memory.host_read";
inline constexpr const char *kHostWrite = "memory.host_write";
inline constexpr const char *kHostTriad = "memory.host_triad";

// Parameters
inline constexpr const char *kSizeBytes = "size_bytes"; // one array
inline constexpr const char *kGpu = "gpu";
inline constexpr const char *kNumaNode = "numa_node";
inline constexpr const char *kThreads = "threads";
inline constexpr const char *kThreadsUsed = "threads_used";      // derived: the team that ran
inline constexpr const char *kPassesPerCall = "passes_per_call"; // derived: sweeps per timed call

// Metrics
inline constexpr const char *kBandwidthGbytesPerS = metric::kBandwidthGbytesPerS;
inline constexpr const char *kBandwidthMaxGbytesPerS = metric::kBandwidthMaxGbytesPerS;
inline constexpr const char *kBytesPerCall = metric::kBytesPerCall;
inline constexpr const char *kVerified = metric::kVerified;

inline constexpr std::array kMetrics{kBandwidthGbytesPerS, kBandwidthMaxGbytesPerS, kBytesPerCall,
                                     kVerified};

} // namespace railgauge::memory::record
