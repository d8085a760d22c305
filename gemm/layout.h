#pragma once
// How the operands of OUR row-major C[M×N] = A[M×K]·B[K×N] are stored: the first letter for A,
// the second for B; n = as written (A [M×K], B [K×N]), t = stored transposed (Aᵀ [K×M], Bᵀ
// [N×K]).
//   nt  X·Wᵀ: a linear layer's forward, its weight [out × in] (torch `x @ w.t()`), and the only
//       layout Hopper's FP8 GEMM takes (cuBLASLt's column-major TN)
//   nn  dY·W: a linear layer's data gradient; torch.matmul(a, b) on contiguous tensors
//   tn  Xᵀ·dY: a linear layer's weight gradient, both operands stored [tokens × features]
// Which layout each GEMM of a transformer block runs in during training is
// training_layout() (transformer_shapes.h).
#include <optional>
#include <string>
#include <string_view>

#include "gemm/dtype.h"
#include "records/gemm_record.h"

namespace railgauge::gemm {

enum class Layout { nt, nn, tn };

std::string_view to_string(Layout layout);
// Throws InputError naming `where` for anything but nt, nn or tn.
Layout parse_layout(std::string_view text, const std::string &where);
inline bool a_transposed(Layout layout) { return layout == Layout::tn; }
inline bool b_transposed(Layout layout) { return layout == Layout::nt; }

// Why `dtype` cannot run in `layout` (fp8 needs nt on Hopper), or nullopt.
std::optional<std::string> layout_problem(Dtype dtype, Layout layout);

// The layout axis value that runs each GEMM in the layout training runs it in.
inline constexpr std::string_view kTrainingLayouts = record::kTrainingLayouts;

// What a framework runs a GEMM of `training` layout in, in `dtype`: the same, except fp8, whose
// every GEMM Transformer Engine runs as nt on Hopper (it keeps transposed fp8 copies of the
// activations and weights for the backward pass).
Layout layout_for_dtype(Layout training, Dtype dtype);

} // namespace railgauge::gemm
