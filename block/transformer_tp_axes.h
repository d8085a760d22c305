#pragma once
// The axes of block.transformer_tp (and _gpu) and the model a point names: the gemm family's model
// axes (a preset, overridden dimension by dimension), the TP comm type and the lockstep loop.
#include <string>
#include <vector>

#include "gemm/model_axes.h"
#include "harness/axis.h"

namespace railgauge::block {

// model (default `default_model`), seq, micro_batch, hidden, heads, kv_heads, ffn, swiglu,
// sequence_parallel, iterations, warmup, timeout_s.
std::vector<Axis> transformer_tp_axes(const std::string &default_model = "cpu-small");

// What a point of either block backend sets: its model (gemm::point_model), the TP comm type and
// the lockstep loop.
struct BlockPointSettings {
  gemm::ModelShape model;
  bool sequence_parallel = false;
  int iterations = 0, warmup = 0;
  double timeout_s = 0;
};
BlockPointSettings block_point_settings(const Point &point);

} // namespace railgauge::block
