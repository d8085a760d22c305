#pragma once
// The memory family's record contract (see records/gemm_record.h): keys, and the parameter and
// metric names that the family writes and analysis and the shipped rules read. The bandwidth
// metrics are the measurement core's (harness/metric_names.h). The STREAM-like points
// (memory.host_*, memory.hbm_*) are written and read through one struct, MemoryPoint
// (records/memory_point.h); memory.burn's, memory.pattern's and memory.peer_copy's figures in
// each GPU's object through theirs (records/memory_burn_figures.h), and over the GPUs through
// records/across_gpu_figures.h.
#include <array>

#include "harness/metric_names.h"
#include "records/across_gpu_figures.h"
#include "records/metric_field.h"

namespace railgauge::memory::record {

inline constexpr const char *kFamily = "memory";
inline constexpr const char *kCategory = "memory";

// Keys: HBM kernels on a GPU, host DRAM kernels on a NUMA node
inline constexpr const char *kHbmCopy = "memory.hbm_copy";
inline constexpr const char *kHbmRead = "memory.hbm_read";
inline constexpr const char *kHbmWrite = "memory.hbm_write";
inline constexpr const char *kHbmTriad = "memory.hbm_triad";
inline constexpr const char *kHbmMemcpyD2d = "memory.hbm_memcpy_d2d";
// Every local GPU at once for a duration (a burn-in phase): metrics.per_gpu, one per GPU
inline constexpr const char *kHbmBurn = "memory.burn";
// Every local GPU at once: patterns written over most of the free HBM and checked where they lie
// (memory/cuda/hbm_pattern.h), metrics.per_gpu, one per GPU
inline constexpr const char *kHbmPattern = "memory.pattern";
// Every ordered pair of local GPUs, one at a time: cudaMemcpyPeerAsync src -> dst, checked on dst
// (memory/cuda/peer_copy.h), metrics.per_gpu, one per GPU with its outgoing pairs
inline constexpr const char *kPeerCopy = "memory.peer_copy";
inline constexpr const char *kHostCopy = "memory.host_copy";
inline constexpr const char *kHostRead = "memory.host_read";
inline constexpr const char *kHostWrite = "memory.host_write";
inline constexpr const char *kHostTriad = "memory.host_triad";

// Parameters
inline constexpr const char *kSizeBytes = metric::kSizeBytes; // one array
inline constexpr const char *kGpu = metric::kGpu;
inline constexpr const char *kNumaNode = "numa_node";
inline constexpr const char *kThreads = "threads";
inline constexpr const char *kThreadsUsed = "threads_used";      // derived: the team that ran
inline constexpr const char *kPassesPerCall = "passes_per_call"; // derived: sweeps per timed call
inline constexpr const char *kTotalBytes = "total_bytes"; // derived (HBM): every array together
inline constexpr const char *kL2Bytes = metric::kL2Bytes; // derived (HBM): the GPU's L2
// Derived: the GPU (HBM) and its SMs, a copy kernel's launch (not the library's memcpy), the
// host's vector instructions, and memory.burn's GPUs and kernel
inline constexpr const char *kGpuName = metric::kGpuName;
inline constexpr const char *kSmCount = "sm_count";
inline constexpr const char *kGridBlocks = metric::kGridBlocks;
inline constexpr const char *kBlockThreads = metric::kBlockThreads;
inline constexpr const char *kVectorIsa = "vector_isa";
inline constexpr const char *kGpusBurned = metric::kGpusBurned;
inline constexpr const char *kKernel = "kernel";
// memory.pattern's axes: rounds of the four patterns, and faults put into the memory on purpose
// between a write and its check (0 but in the test that proves the check finds them)
inline constexpr const char *kRounds = "rounds";
inline constexpr const char *kInjectFaults = "inject_faults";
inline constexpr const char *kPatterns = "patterns"; // derived: the patterns' names, in order
// memory.peer_copy's axis: timed copies per pair after the untimed one
inline constexpr const char *kRepetitions = "repetitions";

// Metrics
inline constexpr const char *kBandwidthGbytesPerS = metric::kBandwidthGbytesPerS;
inline constexpr const char *kBandwidthMaxGbytesPerS = metric::kBandwidthMaxGbytesPerS;
inline constexpr const char *kBytesPerCall = metric::kBytesPerCall;
inline constexpr const char *kVerified = metric::kVerified;
inline constexpr const char *kTelemetry = metric::kTelemetry; // HBM points
inline constexpr const char *kWrongElements = metric::kWrongElements;
inline constexpr const char *kPerGpu = metric::kPerGpu; // memory.burn: one object per GPU
// ... its fields beside the core's (metric::kPerGpu*), kGpu, kBandwidthGbytesPerS, kWrongElements
// and kTelemetry: the GPU's slowest second, the copies it ran and the elements it checked
inline constexpr const char *kPerGpuBandwidthMinGbytesPerS = "bandwidth_min_gbytes_per_s";
inline constexpr const char *kPerGpuCalls = "calls";
inline constexpr const char *kPerGpuElements = "elements";

// memory.pattern: the words the check found wrong (over every GPU, and per GPU), the share of the
// GPU's free memory the patterns covered (the lowest GPU's, and per GPU), and per GPU what the
// figure counts and where the first wrong words lay
inline constexpr const char *kWrongWords = "wrong_words";
inline constexpr const char *kFreeMemoryCoveredFraction = "free_memory_covered_fraction";
inline constexpr const char *kPerGpuWrongWordsByPattern = "wrong_words_by_pattern";
inline constexpr const char *kPerGpuBadWords = "bad_words";
inline constexpr const char *kPerGpuCoveredBytes = "covered_bytes";
inline constexpr const char *kPerGpuFreeMemoryBytes = "free_memory_bytes";
inline constexpr const char *kPerGpuMarginBytes = "margin_bytes";
inline constexpr const char *kPerGpuChunks = "chunks";
inline constexpr const char *kPerGpuPatternTimeS = "pattern_time_s";
inline constexpr const char *kPerGpuInjectedFaults = "injected_faults";
// memory.peer_copy: per GPU its outgoing pairs, the peer of its slowest one, and each pair's
// fields beside kBandwidthGbytesPerS, kPerGpuBandwidthMinGbytesPerS, kWrongWords and the error;
// over the node the ordered pairs that had no peer access (no figure, said in the pair)
inline constexpr const char *kPerGpuPairs = "pairs";
inline constexpr const char *kPerGpuWorstPeer = "worst_peer_gpu";
inline constexpr const char *kPerGpuPeersUnreached = "peers_unreached";
inline constexpr const char *kPairSrc = "src";
inline constexpr const char *kPairDst = "dst";
inline constexpr const char *kPairPeerAccess = "peer_access";
inline constexpr const char *kPairCopies = "copies";
inline constexpr const char *kPairWords = "words";
inline constexpr const char *kPairsWithoutPeerAccess = "pairs_without_peer_access";
// ... each bad word's fields
inline constexpr const char *kBadWordAddress = "address";
inline constexpr const char *kBadWordExpected = "expected";
inline constexpr const char *kBadWordRead = "read";
inline constexpr const char *kBadWordPattern = "pattern";
inline constexpr const char *kBadWordRound = "round";

// memory.burn (every GPU at once): the slowest, median and fastest GPU's rate
inline constexpr const char *kBurnBandwidthMinGbytesPerS = "bandwidth_gbytes_per_s_min";
inline constexpr const char *kBurnBandwidthMedianGbytesPerS = "bandwidth_gbytes_per_s_median";
inline constexpr const char *kBurnBandwidthMaxGbytesPerS = "bandwidth_gbytes_per_s_max";
// ... and memory.peer_copy's: the names the GB/s over the GPUs are written under
inline constexpr records::AcrossGpuNames kBurnBandwidthAcrossGpus{
    kBurnBandwidthMinGbytesPerS, kBurnBandwidthMedianGbytesPerS, kBurnBandwidthMaxGbytesPerS};

// The field table: every metric a memory record may carry, its unit and what it means
// (records/metric_field.h). tests/analysis/record_contract_test.cpp holds it to the schema.
inline constexpr std::array kMetrics{
    MetricField{kBandwidthGbytesPerS, "GB/s",
                "bytes read and written per call over the median time"},
    MetricField{kBandwidthMaxGbytesPerS, "GB/s",
                "bytes read and written per call over the fastest call"},
    MetricField{kBytesPerCall, "bytes", "bytes one call reads and writes"},
    MetricField{kVerified, "", "the point's data check passed"},
    MetricField{kTelemetry, "", "HBM points: the GPU's clocks, power, temperature and throttling"},
    MetricField{kWrongElements, "count", "elements the data check found wrong, over every GPU"},
    MetricField{kPerGpu, "", "memory.burn: one object per GPU"},
    MetricField{kWrongWords, "count",
                "memory.pattern: 64-bit words that held another value than the pattern wrote"},
    MetricField{kFreeMemoryCoveredFraction, "",
                "memory.pattern: bytes the patterns covered over the GPU's free memory"},
    MetricField{kBurnBandwidthMinGbytesPerS, "GB/s",
                "memory.burn: the slowest GPU's median copy rate"},
    MetricField{kBurnBandwidthMedianGbytesPerS, "GB/s",
                "memory.burn: the median GPU's median copy rate"},
    MetricField{kBurnBandwidthMaxGbytesPerS, "GB/s",
                "memory.burn: the fastest GPU's median copy rate"},
    MetricField{kPairsWithoutPeerAccess, "count",
                "memory.peer_copy: ordered GPU pairs without peer access (not copied)"},
    MetricField{kPerGpuPeersUnreached, "count",
                "memory.peer_copy, per GPU: the node's other GPUs it copied no measured pair to "
                "(no peer access, a pair missing or broken; burn-peer-copy-reach reads it)"},
    MetricField{kPerGpuBandwidthMinGbytesPerS, "GB/s",
                "per GPU: memory.burn's slowest settled batch, memory.peer_copy's slowest "
                "outgoing pair (burn-peer-copy-vs-siblings reads it)"},
};

} // namespace railgauge::memory::record
