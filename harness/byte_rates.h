#pragma once
// A rate derived from the bytes a call moved, or the floating-point operations it did, and the
// seconds it took, in the project's units (GB = 1e9 bytes, Gb = 1e9 bits, TFLOP/s = 1e12 FLOP/s):
// the one place these sums are written, so that the core's bandwidth_gbytes_per_s and a family's
// bandwidth_gbits_per_s of the same call agree, and every TFLOP/s a record states is one sum.
#include <limits>

namespace railgauge {

inline double gbytes_per_s_of(double bytes, double time_s) { return bytes / time_s / 1e9; }
inline double gbits_per_s_of(double bytes, double time_s) { return 8.0 * bytes / time_s / 1e9; }
// 0 where the time is not positive (nothing ran)
inline double tflops_of(double flops, double time_s) {
  return time_s > 0 ? flops / time_s / 1e12 : 0.0;
}
inline double gflops_of(double flops, double time_s) {
  return time_s > 0 ? flops / time_s / 1e9 : 0.0;
}
// The same rate, NaN where the time is not positive: a figure of something that may have no timed
// sample (a lane beside another that finished first), which its record then holds as null (not
// measured) rather than as a rate of 0.
inline double measured_or_nan(double rate, double time_s) {
  return time_s > 0 ? rate : std::numeric_limits<double>::quiet_NaN();
}

} // namespace railgauge
