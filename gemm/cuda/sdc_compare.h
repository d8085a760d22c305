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

// `first` and `now` hold the element's bits in their low 16 (bf16, fp16), 32 (fp32) or 64 (fp64)
// bits.
RAILGAUGE_HOST_DEVICE inline ElementVerdict
compare_element(OutputFormat format, std::uint64_t first, std::uint64_t now) {
  std::uint64_t exponent_all_ones = 0, mantissa = 0;
  switch (format) {
  case OutputFormat::bf16:
    exponent_all_ones = ((now >> 7) & 0xffu) == 0xffu;
    mantissa = now & 0x7fu;
    break;
  case OutputFormat::fp16:
    exponent_all_ones = ((now >> 10) & 0x1fu) == 0x1fu;
    mantissa = now & 0x3ffu;
    break;
  case OutputFormat::fp32:
    exponent_all_ones = ((now >> 23) & 0xffu) == 0xffu;
    mantissa = now & 0x7fffffu;
    break;
  case OutputFormat::fp64:
    exponent_all_ones = ((now >> 52) & 0x7ffu) == 0x7ffu;
    mantissa = now & 0xfffffffffffffull;
    break;
  }
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
