#pragma once
// The element types a GEMM benchmark can run, their names on the command line and in records,
// and their sizes for the byte accounting (gemm_bytes() in transformer_shapes.h).
//
// fp8_e4m3 reads 1-byte A and B and writes bf16 C (per-tensor scales, Hopper's FP8 GEMM);
// tf32 is fp32 storage with TF32 tensor-core math, so it moves fp32 bytes.
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace railgauge::gemm {

enum class Dtype { fp64, fp32, tf32, bf16, fp16, fp8_e4m3 };

std::string_view to_string(Dtype d);
// Throws InputError naming `where` and listing the dtypes.
Dtype parse_dtype(std::string_view text, const std::string &where);

struct DtypeBytes {
  int a = 0, b = 0, c = 0; // bytes per element of the inputs A, B and the output C
};
DtypeBytes dtype_bytes(Dtype d);

// Names of every dtype, in enum order (axis choices take subsets).
std::vector<std::string> dtype_names(const std::vector<Dtype> &dtypes);

} // namespace railgauge::gemm
