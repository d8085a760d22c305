#pragma once
// The decimal prefixes the fits convert by, one definition for every file of the folder:
// railgauge's MB, GB and TFLOP/s are 1e6, 1e9 and 1e12 (the README's units).
namespace railgauge::calibrate {

inline constexpr double kMega = 1e6;
inline constexpr double kGiga = 1e9;
inline constexpr double kTera = 1e12;

} // namespace railgauge::calibrate
