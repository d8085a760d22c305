#include "gemm/cuda/cublaslt_plan.h"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "harness/error.h"

namespace railgauge::gemm {

std::string_view to_string(Layout layout) { return layout == Layout::nt ? "nt" : "nn"; }

Layout parse_layout(std::string_view text, const std::string &where) {
  if (text == "nt")
    return Layout::nt;
  if (text == "nn")
    return Layout::nn;
  throw InputError(fmt::format("unknown layout '{}'", text), where,
                   "use nt (B stored as Bᵀ [N×K], the default) or nn (B stored [K×N])");
}

std::optional<std::string> layout_problem(Dtype dtype, Layout layout) {
  if (dtype == Dtype::fp8_e4m3 && layout != Layout::nt)
    return std::string("fp8_e4m3 runs only in layout nt on Hopper (cuBLASLt's FP8 GEMM takes A "
                       "transposed and B not, column-major TN): use -a layout=nt");
  return std::nullopt;
}

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
    return std::nullopt;
  case Dtype::fp64:
    return std::string("the GPU backend runs bf16, fp16, fp8_e4m3, tf32 and fp32, not fp64");
  }
  return std::nullopt;
}

LtCall lt_call(const GemmShape &s, Layout layout) {
  LtCall call;
  call.m = s.n;
  call.n = s.m;
  call.k = s.k;
  call.batch = s.batch;
  call.transpose_b = false;
  if (layout == Layout::nt) {
    // Our Bᵀ [N×K] row-major = column-major [K×N], ld K; op T gives N×K.
    call.transpose_a = true;
    call.a = {s.k, s.n, s.k, s.n * s.k};
  } else {
    // Our B [K×N] row-major = column-major [N×K], ld N; op N.
    call.transpose_a = false;
    call.a = {s.n, s.k, s.n, s.n * s.k};
  }
  // Our A [M×K] row-major = column-major [K×M], ld K; op N.
  call.b = {s.k, s.m, s.k, s.m * s.k};
  // Our C [M×N] row-major = column-major [N×M], ld N.
  call.c = {s.n, s.m, s.n, s.m * s.n};
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

OperandRotation operand_rotation(std::uint64_t set_bytes, std::uint64_t l2_bytes,
                                 std::uint64_t memory_budget_bytes) {
  OperandRotation r;
  const double target = kRotationL2Multiple * static_cast<double>(l2_bytes);
  if (set_bytes == 0 || static_cast<double>(set_bytes) >= target) {
    r.sets = 1;
    r.policy = "single_set";
  } else {
    const double wanted = std::ceil(target / static_cast<double>(set_bytes));
    const double fit =
        std::floor(static_cast<double>(memory_budget_bytes) / static_cast<double>(set_bytes));
    const double sets = std::max(1.0, std::min({wanted, fit, double(kMaxOperandSets)}));
    r.sets = static_cast<int>(sets);
    r.policy = sets >= wanted ? "rotated" : "rotated_partial";
  }
  r.total_bytes = static_cast<std::uint64_t>(r.sets) * set_bytes;
  return r;
}

} // namespace railgauge::gemm
