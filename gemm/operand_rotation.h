#pragma once
// Operand rotation, shared by the GEMM backends: how many copies of a GEMM's operands one
// measurement cycles through so that small shapes are not timed from a cache left warm by the
// previous call.
#include <cstdint>
#include <string>

namespace railgauge::gemm {

// How many copies of the operands a batch rotates through. One call of the measured operation
// uses the next set, so that a GEMM whose operands fit in L2 does not read them from L2 left
// warm by the previous call (a framework's GEMM reads activations just written by another
// kernel, and weights that have long left L2). Sets are added until they hold
// kRotationL2Multiple × the L2 size (a GPU's, or one core's on a CPU), at most kMaxOperandSets and
// within `memory_budget_bytes`.
//   policy "single_set"       one set already holds kRotationL2Multiple × L2: no rotation needed
//   policy "rotated"          `sets` sets hold at least kRotationL2Multiple × L2
//   policy "rotated_partial"  the cap or the memory budget stopped short of it: small shapes
//                             may still be partly served from L2 (the record says so)
inline constexpr double kRotationL2Multiple = 4.0;
inline constexpr int kMaxOperandSets = 4096;
struct OperandRotation {
  int sets = 1;
  std::string policy;
  std::uint64_t total_bytes = 0; // sets × set bytes
};
OperandRotation operand_rotation(std::uint64_t set_bytes, std::uint64_t l2_bytes,
                                 std::uint64_t memory_budget_bytes);

} // namespace railgauge::gemm
