#include "gemm/operand_rotation.h"

#include <algorithm>
#include <cmath>

namespace railgauge::gemm {

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
