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

} // namespace railgauge::metric
