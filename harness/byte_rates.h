#pragma once
// A rate derived from the bytes a call moved and the seconds it took, in the project's units
// (GB = 1e9 bytes, Gb = 1e9 bits): the one place these sums are written, so that the core's
// bandwidth_gbytes_per_s and a family's bandwidth_gbits_per_s of the same call agree.
namespace railgauge {

inline double gbytes_per_s_of(double bytes, double time_s) { return bytes / time_s / 1e9; }
inline double gbits_per_s_of(double bytes, double time_s) { return 8.0 * bytes / time_s / 1e9; }

} // namespace railgauge
