#pragma once
// The host-side decisions of the cuBLASLt backend, free of CUDA types so that they are compiled
// and tested in every build: operand layout and its mapping onto cuBLASLt's column-major call,
// which GPUs run which dtype, how many operand sets rotate through a batch so that small shapes
// do not run from L2, and the memory one point needs.
//
// Layouts (gemm/layout.h) describe OUR row-major problem C[M×N] = A[M×K]·B[K×N].
// cuBLASLt is column-major, so the call computes Cᵀ = op(B')·op(A') with m' = N, n' = M,
// k' = K: a row-major X[r×c] is a column-major [c×r] with leading dimension c, at no cost.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "gemm/dtype.h"
#include "gemm/layout.h"
#include "gemm/operand_rotation.h"
#include "gemm/transformer_shapes.h"

namespace railgauge::gemm {

// Why a GPU of compute capability `cc` (90 = sm_90) has no tensor-core path for `dtype` (fp8
// needs 89+, bf16 and tf32 80+; fp16, fp32 and fp64 run everywhere), or nullopt.
std::optional<std::string> dtype_capability_problem(Dtype dtype, int cc);

// One column-major cuBLASLt matrix: rows, columns, leading dimension, elements between
// consecutive matrices of a strided batch.
struct LtMatrix {
  std::int64_t rows = 0, cols = 0, ld = 0, batch_stride = 0;
};

// The column-major call that computes our row-major GEMM (see the top of this file).
struct LtCall {
  bool transpose_a = false;         // op of cuBLASLt's A (our B)
  bool transpose_b = false;         // op of cuBLASLt's B (our A): T when A is stored as Aᵀ
  std::int64_t m = 0, n = 0, k = 0; // cuBLASLt's: N, M, K of ours
  LtMatrix a, b, c;                 // cuBLASLt's A (our B), B (our A), C = D (our C)
  std::int64_t batch = 1;
};
LtCall lt_call(const GemmShape &shape, Layout layout);

// Bytes of one set of operands of a GEMM (A, B and C of every batch entry), each rounded up to
// 256 bytes so that every rotated set starts aligned like a cudaMalloc'ed buffer.
std::uint64_t operand_set_bytes(const GemmShape &shape, Dtype dtype);
std::uint64_t aligned_bytes(std::uint64_t bytes);

// The cuBLASLt workspace the heuristic may use: 32 MiB, what NVIDIA's cuBLAS documentation
// recommends for Hopper (and what PyTorch gives cuBLASLt on sm_90), so the algorithms found are
// those a framework would get.
inline constexpr std::uint64_t kLtWorkspaceBytes = std::uint64_t{32} << 20;

// Output elements per GEMM that the data check recomputes on the GPU in fp64.
inline constexpr std::int64_t kVerifiedElementsPerGemm = 4096;

} // namespace railgauge::gemm
