#pragma once
// The metric names the measurement core writes for every family (Measurement::to_json,
// bandwidth_metrics, Outcome::conclude_data_check): the families' record contracts
// (<family>/<family>_record.h) name them from here.
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

} // namespace railgauge::metric
