#pragma once
// The offload family's record contract (see gemm/gemm_record.h): keys, and the parameter and
// metric names that the family writes and analysis and the shipped rules read. The copy
// bandwidth is the measurement core's (harness/metric_names.h).
#include <array>

#include "harness/metric_names.h"

namespace railgauge::offload::record {

inline constexpr const char *kFamily = "offload";
inline constexpr const char *kCategory = "pcie";

// Keys
inline constexpr const char *kH2d = "offload.h2d";
inline constexpr const char *kD2h = "offload.d2h";
inline constexpr const char *kBidir = "offload.bidir";
inline constexpr const char *kZeroCopyRead = "offload.zero_copy_read";
inline constexpr const char *kZeroCopyWrite = "offload.zero_copy_write";
inline constexpr const char *kAllGpusH2d = "offload.all_gpus_h2d";
inline constexpr const char *kAllGpusD2h = "offload.all_gpus_d2h";
inline constexpr const char *kWithGemm = "offload.with_gemm";

// Parameters
inline constexpr const char *kSizeBytes = "size_bytes";
inline constexpr const char *kGpu = "gpu";
inline constexpr const char *kHostMemory = "host_memory"; // pinned | pageable
inline constexpr const char *kPlacement = "placement";    // near | far NUMA node of the GPU
inline constexpr const char *kDirection = "direction";
inline constexpr const char *kGemmMnk = "gemm_mnk";

// Metrics
inline constexpr const char *kBandwidthGbytesPerS = metric::kBandwidthGbytesPerS;
inline constexpr const char *kBytesPerCall = metric::kBytesPerCall;
inline constexpr const char *kVerified = metric::kVerified;
// The link NVML saw while the copy ran: below its maximum generation or width (bool)
inline constexpr const char *kPcieLinkDowntrained = "pcie_link_downtrained";
// What the link's generation x width carries after encoding and packet overhead
inline constexpr const char *kExpectedGbytesPerS = "expected_gbytes_per_s";
inline constexpr const char *kEfficiency = "efficiency";          // bandwidth / expected
inline constexpr const char *kH2dGbytesPerS = "h2d_gbytes_per_s"; // bidir: each direction
inline constexpr const char *kD2hGbytesPerS = "d2h_gbytes_per_s";
inline constexpr const char *kCopySlowdown = "copy_slowdown"; // with_gemm: together / alone
inline constexpr const char *kGemmSlowdown = "gemm_slowdown";

// Written beside the figures: what the data check compared, how the point was set up,
// where a multi-part point's slowest part is
inline constexpr const char *kSumGbytesPerS = "sum_gbytes_per_s";
inline constexpr const char *kH2dEfficiency = "h2d_efficiency";
inline constexpr const char *kD2hEfficiency = "d2h_efficiency";
inline constexpr const char *kWrongWords = "wrong_words";
inline constexpr const char *kSumOfGpusGbytesPerS = "sum_of_gpus_gbytes_per_s";
inline constexpr const char *kPerGpu = "per_gpu";
inline constexpr const char *kSlowestGpu = "slowest_gpu";
inline constexpr const char *kSlowestGpuShare = "slowest_gpu_share";
inline constexpr const char *kBytesPerCopy = "bytes_per_copy";
inline constexpr const char *kCopyAloneGbytesPerS = "copy_alone_gbytes_per_s";
inline constexpr const char *kCopyConcurrentGbytesPerS = "copy_concurrent_gbytes_per_s";
inline constexpr const char *kGemmAloneTflops = "gemm_alone_tflops";
inline constexpr const char *kGemmConcurrentTflops = "gemm_concurrent_tflops";
inline constexpr const char *kGemmWrongSamples = "gemm_wrong_samples";

inline constexpr std::array kMetrics{kBandwidthGbytesPerS,
                                     kBytesPerCall,
                                     kVerified,
                                     kPcieLinkDowntrained,
                                     kExpectedGbytesPerS,
                                     kEfficiency,
                                     kH2dGbytesPerS,
                                     kD2hGbytesPerS,
                                     kCopySlowdown,
                                     kGemmSlowdown,
                                     kSumGbytesPerS,
                                     kH2dEfficiency,
                                     kD2hEfficiency,
                                     kWrongWords,
                                     kSumOfGpusGbytesPerS,
                                     kPerGpu,
                                     kSlowestGpu,
                                     kSlowestGpuShare,
                                     kBytesPerCopy,
                                     kCopyAloneGbytesPerS,
                                     kCopyConcurrentGbytesPerS,
                                     kGemmAloneTflops,
                                     kGemmConcurrentTflops,
                                     kGemmWrongSamples};

} // namespace railgauge::offload::record
