#include "gemm/model_axes.h"

namespace railgauge::gemm {

std::vector<Axis> model_dimension_axes() {
  const auto model_override = [](const char *name, const std::string &help) {
    return Axis{name, AxisType::integer, help + "; 0 = the model's own", {std::int64_t{0}}, {}};
  };
  return {
      model_override("seq", "sequence length s (M = s·micro_batch tokens)"),
      model_override("micro_batch", "sequences per micro-batch b"),
      model_override("hidden", "hidden size h"),
      model_override("heads", "attention (query) heads"),
      model_override("kv_heads", "key/value heads (GQA)"),
      model_override("ffn", "MLP inner size (per gate for SwiGLU)"),
      {"swiglu",
       AxisType::integer,
       "gated MLP (gate and up fused: N = 2·ffn/t): 1 on, 0 off, -1 the model's own",
       {std::int64_t{-1}},
       {}},
  };
}

ModelShape point_model(const Point &point) {
  ModelOverrides o;
  o.seq = point.integer("seq");
  o.micro_batch = point.integer("micro_batch");
  o.hidden = point.integer("hidden");
  o.heads = point.integer("heads");
  o.kv_heads = point.integer("kv_heads");
  o.ffn = point.integer("ffn");
  o.swiglu = point.integer("swiglu");
  return resolve_model(point.text("model"), o, "model");
}

} // namespace railgauge::gemm
