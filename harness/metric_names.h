#pragma once
// The metric names the measurement core writes for every family (Measurement::to_json,
// bandwidth_metrics, Outcome::conclude_data_check), and the names several families write with one
// meaning: the families' record contracts (records/<family>_record.h) name them from here, so
// that each name has one owner.
namespace railgauge::metric {

inline constexpr const char *kTimeS = "time_s"; // summary of the time per call
inline constexpr const char *kBytesPerCall = "bytes_per_call";
inline constexpr const char *kBandwidthGbytesPerS = "bandwidth_gbytes_per_s";        // median time
inline constexpr const char *kBandwidthMaxGbytesPerS = "bandwidth_max_gbytes_per_s"; // fastest
inline constexpr const char *kVerified = "verified"; // the point's data check passed
// A GPU point's window of clocks, power, temperature and throttle reasons
// (harness/inventory/gpu_telemetry.h): {"before", "during", "after", "throttled"}
inline constexpr const char *kTelemetry = "telemetry";
// How the point waited for a steady state before sampling (harness/measure.h): {method, warmup_s}
inline constexpr const char *kSteadyState = "steady_state";
// Ranks in lockstep (harness/lockstep.h): who was slowest and who arrived last, and how often
inline constexpr const char *kRanks = "ranks";
inline constexpr const char *kOwnTimeS = "own_time_s"; // summary of this rank's own call times
inline constexpr const char *kSlowestRank = "slowest_rank";
inline constexpr const char *kSlowestRankShare = "slowest_rank_share";
inline constexpr const char *kLastArrivalRank = "last_arrival_rank";
inline constexpr const char *kLastArrivalRankShare = "last_arrival_rank_share";
// The point's GPUs sharing their host-link lanes (harness/lane_contention.h): median and lowest
inline constexpr const char *kLanesContentionFraction = "lanes_contention_fraction";
inline constexpr const char *kLanesContentionFractionMin = "lanes_contention_fraction_min";

// Every name above: what any family's record may carry from the core.
inline constexpr const char *kCoreMetrics[] = {kTimeS,
                                               kBytesPerCall,
                                               kBandwidthGbytesPerS,
                                               kBandwidthMaxGbytesPerS,
                                               kVerified,
                                               kTelemetry,
                                               kSteadyState,
                                               kRanks,
                                               kOwnTimeS,
                                               kSlowestRank,
                                               kSlowestRankShare,
                                               kLastArrivalRank,
                                               kLastArrivalRankShare,
                                               kLanesContentionFraction,
                                               kLanesContentionFractionMin};

// The core's bookkeeping beside the figures (Measurement::to_json, LockstepResult::to_json): the
// calls one timed sample batched, the timer and the sampler, why sampling stopped, the seconds
// it took and the untimed load before it. No rule judges them; every record may carry them.
inline constexpr const char *kBatch = "batch";
inline constexpr const char *kTimer = "timer";
inline constexpr const char *kSampler = "sampler";
inline constexpr const char *kStop = "stop";
inline constexpr const char *kElapsedS = "elapsed_s";
inline constexpr const char *kWarmupS = "warmup_s";
// The relative noise of each earlier measurement of the point that exceeded its noise_bound and
// was measured again (MeasureSpec::noise_retries), in order: present only when there was one
inline constexpr const char *kNoiseBeforeRemeasure = "noise_before_remeasure";
inline constexpr const char *kCoreBookkeeping[] = {
    kBatch, kTimer, kSampler, kStop, kElapsedS, kWarmupS, kNoiseBeforeRemeasure};
// Lockstep points timed back to back as well (collectives): the wall time per call
inline constexpr const char *kWallTimeS = "wall_time_s";

// The fields of a summary of samples (harness/stats.h, to_json): metrics.time_s.median, ...
namespace summary {
inline constexpr const char *kN = "n";
inline constexpr const char *kMin = "min";
inline constexpr const char *kMax = "max";
inline constexpr const char *kMean = "mean";
inline constexpr const char *kStdev = "stdev";
inline constexpr const char *kMedian = "median";
inline constexpr const char *kP10 = "p10";
inline constexpr const char *kP90 = "p90";
inline constexpr const char *kP99 = "p99";
} // namespace summary

// The fields of metrics.steady_state (harness/measure.cpp): how the point waited, whether the GPU
// settled and at what reading, before and after sampling, and the timed seconds it sampled
// against the least it had to.
namespace steady {
inline constexpr const char *kMethod = "method";
inline constexpr const char *kSettled = "settled";
inline constexpr const char *kLastReading = "last_reading";
inline constexpr const char *kWarmupS = "warmup_s";
inline constexpr const char *kSettledAfter = "settled_after";
inline constexpr const char *kLastReadingAfter = "last_reading_after";
inline constexpr const char *kTimedS = "timed_s";
inline constexpr const char *kLeastTimedS = "least_timed_s";
} // namespace steady

// A rate second by second over every GPU at once (harness/rate_series.h): each row's time, and
// the slowest GPU against the median one
inline constexpr const char *kSeriesTS = "t_s";
inline constexpr const char *kSlowestVsMedian = "slowest_vs_median";

// Names that several families write with one meaning (not the core's: kCoreMetrics leaves them
// out). Each family's contract names the ones it writes from here and lists them in its kMetrics.
inline constexpr const char *kWrongElements = "wrong_elements"; // over every rank / GPU
inline constexpr const char *kPerGpu = "per_gpu"; // every GPU at once: one object per GPU
// ... the fields of each of those objects that several families write (gemm.burn, memory.burn,
// offload.all_gpus_*; kGpu and kTelemetry beside them): which GPU, the burn's verdict and error,
// how long it settled and ran, its rate second by second
inline constexpr const char *kPerGpuName = "name";
inline constexpr const char *kPerGpuUuid = "uuid";
inline constexpr const char *kPerGpuPci = "pci";
inline constexpr const char *kPerGpuVerdict = "verdict";
inline constexpr const char *kPerGpuError = "error";
inline constexpr const char *kPerGpuSettleS = "settle_s";
inline constexpr const char *kPerGpuElapsedS = "elapsed_s";
inline constexpr const char *kPerGpuSeries = "series";
inline constexpr const char *kSlowestGpu = "slowest_gpu";
inline constexpr const char *kEfficiency = "efficiency"; // the figure over what the part can do
// A transfer beside a GEMM load (offload.with_gemm, collectives' *_with_gemm)
inline constexpr const char *kGemmAloneTflops = "gemm_alone_tflops";
inline constexpr const char *kGemmConcurrentTflops = "gemm_concurrent_tflops";
inline constexpr const char *kGemmSlowdown = "gemm_slowdown"; // together / alone
inline constexpr const char *kGemmWrongSamples = "gemm_wrong_samples";
// ... and the axis (a param of the record) that sizes that load: M = N = K of its GEMM
inline constexpr const char *kGemmMnk = "gemm_mnk";
inline constexpr const char *kGemmDtype = "gemm_dtype"; // ... and its element types (derived)

// Params (axes, most of them) that several families' points share
inline constexpr const char *kSizeBytes = "size_bytes";  // one buffer, as each family counts it
inline constexpr const char *kGpu = "gpu";               // CUDA device index
inline constexpr const char *kGpuName = "gpu_name";      // the GPU model
inline constexpr const char *kDtype = "dtype";           // the element type
inline constexpr const char *kDirection = "direction";   // of a copy or a transfer
inline constexpr const char *kIterations = "iterations"; // timed calls (rdma: 0 = the core's rule)
inline constexpr const char *kSource = "source"; // who measured it: "railgauge", "nccl-tests", ...
inline constexpr const char *kDurationS = "duration_s"; // a burn's seconds on every GPU at once

// Derived params that several families write with one meaning: the CPU BLAS (gemm.cpu_blas*, the
// CPU block, MPI's all_reduce beside a GEMM) and its threads per rank, the cuBLASLt the GPU
// GEMMs ran on, the GPUs a burn-in ran on at once, the GPU's L2, and a copy kernel's launch
inline constexpr const char *kBlasLibrary = "blas_library";
inline constexpr const char *kBlasThreads = "blas_threads";
inline constexpr const char *kCublasltVersion = "cublaslt_version";
inline constexpr const char *kGpusBurned = "gpus_burned";
inline constexpr const char *kL2Bytes = "l2_bytes";
inline constexpr const char *kGridBlocks = "grid_blocks";
inline constexpr const char *kBlockThreads = "block_threads";

} // namespace railgauge::metric
