#include "gemm/model_axes.h"

#include "records/gemm_record.h"

namespace railgauge::gemm {

std::vector<Axis> model_dimension_axes() {
  const auto model_override = [](const char *name, const std::string &help) {
    return Axis{name, AxisType::integer, help + "; 0 = the model's own", {std::int64_t{0}}, {}};
  };
  return {
      model_override(record::kSeq, "sequence length s (M = s·micro_batch tokens)"),
      model_override(record::kMicroBatch, "sequences per micro-batch b"),
      model_override(record::kHidden, "hidden size h"),
      model_override(record::kHeads, "attention (query) heads"),
      model_override(record::kKvHeads, "key/value heads (GQA)"),
      model_override(record::kFfn, "MLP inner size (per gate for SwiGLU)"),
      {record::kSwiglu,
       AxisType::integer,
       "gated MLP (gate and up fused: N = 2·ffn/t): 1 on, 0 off, -1 the model's own",
       {std::int64_t{-1}},
       {}},
  };
}

ModelShape point_model(const Point &point) {
  ModelOverrides o;
  o.seq = point.integer(record::kSeq);
  o.micro_batch = point.integer(record::kMicroBatch);
  o.hidden = point.integer(record::kHidden);
  o.heads = point.integer(record::kHeads);
  o.kv_heads = point.integer(record::kKvHeads);
  o.ffn = point.integer(record::kFfn);
  o.swiglu = point.integer(record::kSwiglu);
  return resolve_model(point.text(record::kModel), o, "model");
}

} // namespace railgauge::gemm
