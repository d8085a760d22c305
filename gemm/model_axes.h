#pragma once
// The axes that name a transformer (a preset, overridden dimension by dimension) and the model a
// point names through them: one list for the TP sweeps and for block.transformer_tp.
#include <vector>

#include "gemm/model_presets.h"
#include "harness/axis.h"

namespace railgauge::gemm {

// seq, micro_batch, hidden, heads, kv_heads, ffn (0: the model's own) and swiglu (-1: the
// model's own), in that order.
std::vector<Axis> model_dimension_axes();

// The point's `model` with the overrides of model_dimension_axes() applied. Throws InputError
// for an unknown or inconsistent model, naming the axis.
ModelShape point_model(const Point &point);

} // namespace railgauge::gemm
