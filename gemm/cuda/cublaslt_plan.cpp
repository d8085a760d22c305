#include "gemm/cuda/cublaslt_plan.h"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "harness/error.h"

namespace railgauge::gemm {

std::optional<std::string> dtype_capability_problem(Dtype dtype, int cc) {
  const auto needs = [&](int min_cc, const char *what) -> std::optional<std::string> {
    if (cc >= min_cc)
      return std::nullopt;
    return fmt::format("{} needs compute capability {}.{} or newer ({}); this GPU is {}.{}",
                       to_string(dtype), min_cc / 10, min_cc % 10, what, cc / 10, cc % 10);
  };
  switch (dtype) {
  case Dtype::fp8_e4m3:
    return needs(89, "FP8 tensor cores: Ada, Hopper");
  case Dtype::bf16:
  case Dtype::tf32:
    return needs(80, "BF16/TF32 tensor cores: Ampere");
  case Dtype::fp16:
  case Dtype::fp32:
  case Dtype::fp64: // cuBLASLt's DGEMM (CUBLAS_COMPUTE_64F) runs on every CUDA GPU
    return std::nullopt;
  }
  return std::nullopt;
}

LtCall lt_call(const GemmShape &s, Layout layout) {
  LtCall call;
  call.m = s.n;
  call.n = s.m;
  call.k = s.k;
  call.batch = s.batch;
  // A row-major [rows×cols] matrix as cuBLASLt sees it: column-major [cols×rows], ld cols.
  const auto row_major = [](std::int64_t rows, std::int64_t cols) {
    return LtMatrix{cols, rows, cols, rows * cols};
  };
  // cuBLASLt's A is our B: stored as Bᵀ [N×K], op T gives it back as N×K; else [K×N], op N.
  call.transpose_a = b_transposed(layout);
  call.a = b_transposed(layout) ? row_major(s.n, s.k) : row_major(s.k, s.n);
  // cuBLASLt's B is our A: stored as Aᵀ [K×M], op T; else [M×K], op N.
  call.transpose_b = a_transposed(layout);
  call.b = a_transposed(layout) ? row_major(s.k, s.m) : row_major(s.m, s.k);
  call.c = row_major(s.m, s.n);
  return call;
}

std::uint64_t aligned_bytes(std::uint64_t bytes) { return (bytes + 255) / 256 * 256; }

std::uint64_t operand_set_bytes(const GemmShape &s, Dtype dtype) {
  const DtypeBytes e = dtype_bytes(dtype);
  const auto count = [&](std::int64_t rows, std::int64_t cols, int element) {
    return aligned_bytes(static_cast<std::uint64_t>(s.batch) * static_cast<std::uint64_t>(rows) *
                         static_cast<std::uint64_t>(cols) * static_cast<std::uint64_t>(element));
  };
  return count(s.m, s.k, e.a) + count(s.k, s.n, e.b) + count(s.m, s.n, e.c);
}

} // namespace railgauge::gemm
