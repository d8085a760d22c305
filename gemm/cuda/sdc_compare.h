#pragma once
// The silent-data-corruption comparator of gemm.burn: one output element of a repeated GEMM
// against the same element of the first result, bit for bit (same inputs, same algorithm, no
// atomics: a healthy GPU reproduces every bit). Shared by the GPU kernel (gemm_kernels.cu) and
// the host tests, so what the tests check is what the GPU runs.
#include <cstdint>

#include "harness/host_device.h"

namespace railgauge::gemm {

// The storage of a GEMM's output: bf16 (bf16 and fp8 GEMMs), fp16, fp32 (fp32 and tf32), fp64.
enum class OutputFormat : int { bf16 = 0, fp16 = 1, fp32 = 2, fp64 = 3 };

struct ElementVerdict {
  bool mismatch = false; // any bit differs from the first result
  bool nan = false;      // this result is a NaN
  bool inf = false;      // this result is an infinity
};

// Where a format's exponent sits: above `mantissa_bits` bits of mantissa, `exponent_mask` wide
// (IEEE 754 binary16, 32 and 64; bf16 is binary32's top half).
struct FloatLayout {
  int mantissa_bits;
  std::uint64_t exponent_mask;
};

RAILGAUGE_HOST_DEVICE inline FloatLayout float_layout(OutputFormat format) {
  switch (format) {
  case OutputFormat::bf16:
    return {7, 0xffu};
  case OutputFormat::fp16:
    return {10, 0x1fu};
  case OutputFormat::fp32:
    return {23, 0xffu};
  case OutputFormat::fp64:
    break;
  }
  return {52, 0x7ffu};
}

// `first` and `now` hold the element's bits in their low 16 (bf16, fp16), 32 (fp32) or 64 (fp64)
// bits.
RAILGAUGE_HOST_DEVICE inline ElementVerdict
compare_element(OutputFormat format, std::uint64_t first, std::uint64_t now) {
  const FloatLayout layout = float_layout(format);
  const bool exponent_all_ones =
      ((now >> layout.mantissa_bits) & layout.exponent_mask) == layout.exponent_mask;
  const std::uint64_t mantissa = now & ((std::uint64_t{1} << layout.mantissa_bits) - 1);
  ElementVerdict v;
  v.mismatch = first != now;
  v.nan = exponent_all_ones && mantissa != 0;
  v.inf = exponent_all_ones && mantissa == 0;
  return v;
}

RAILGAUGE_HOST_DEVICE inline int output_element_bytes(OutputFormat format) {
  return format == OutputFormat::fp64 ? 8 : format == OutputFormat::fp32 ? 4 : 2;
}

} // namespace railgauge::gemm
