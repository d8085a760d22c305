#include "block/transformer_tp_axes.h"

#include "gemm/model_axes.h"
#include "harness/axis.h"
#include "records/block_record.h"

namespace railgauge::block {

std::vector<Axis> transformer_tp_axes(const std::string &default_model) {
  const auto names = gemm::model_names();
  std::vector<Axis> axes = {
      {record::kModel,
       AxisType::text,
       "transformer whose block runs (docs/gemm.md); `custom` takes its dimensions from "
       "hidden, heads, seq (and kv_heads, ffn)",
       {default_model},
       names},
      {record::kSequenceParallel,
       AxisType::integer,
       "0: all_reduce after the row-parallel layers (Calculon's tensor_par_comm_type ar); "
       "1: Megatron's sequence parallelism, reduce_scatter and all_gather (rs_ag)",
       {std::int64_t{0}},
       {}},
      {record::kIterations,
       AxisType::integer,
       "timed blocks, each after a barrier",
       {std::int64_t{10}},
       {}},
      {record::kWarmup, AxisType::integer, "untimed blocks before them", {std::int64_t{2}}, {}},
      {record::kTimeoutS,
       AxisType::real,
       "how long a rank waits for a collective before naming the ranks that never came",
       {60.0},
       {}},
  };
  // The model's dimensions right after the model, as the gemm family orders them.
  const auto dims = gemm::model_dimension_axes();
  axes.insert(axes.begin() + 1, dims.begin(), dims.end());
  return axes;
}

BlockPointSettings block_point_settings(const Point &point) {
  return {gemm::point_model(point), point.integer(record::kSequenceParallel) != 0,
          static_cast<int>(point.integer(record::kIterations)),
          static_cast<int>(point.integer(record::kWarmup)), point.real(record::kTimeoutS)};
}

} // namespace railgauge::block
