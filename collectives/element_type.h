#pragma once
// The collectives' element types and reduction operations, alone: CUDA sources (compiled as
// C++17) include this, and dtype.h, which needs C++20, builds everything else on it.

namespace railgauge::collectives {

enum class DType { f32, f64, i32, bf16, f16 };
enum class RedOp { sum, prod, max, min };

} // namespace railgauge::collectives
