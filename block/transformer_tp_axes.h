#pragma once
// The axes of block.transformer_tp and the model a point names: the gemm family's model axes
// (a preset, overridden dimension by dimension), the TP comm type and the lockstep loop.
#include <vector>

#include "gemm/model_axes.h"
#include "harness/axis.h"

namespace railgauge::block {

// model, seq, micro_batch, hidden, heads, kv_heads, ffn, swiglu, sequence_parallel, iterations,
// warmup, timeout_s.
std::vector<Axis> transformer_tp_axes();

// The point's model: gemm::point_model (gemm/model_axes.h).
} // namespace railgauge::block
