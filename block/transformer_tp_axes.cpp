#include "block/transformer_tp_axes.h"

#include "harness/axis.h"

namespace railgauge::block {

std::vector<Axis> transformer_tp_axes() {
  const auto model_override = [](const char *name, const char *help) {
    return Axis{name,
                AxisType::integer,
                std::string(help) + "; 0 = the model's own",
                {std::int64_t{0}},
                {}};
  };
  const auto names = gemm::model_names();
  return {
      {"model",
       AxisType::text,
       "transformer whose block runs (docs/gemm.md); `custom` takes its dimensions from "
       "hidden, heads, seq (and kv_heads, ffn)",
       {std::string("cpu-small")},
       names},
      model_override("seq", "sequence length s"),
      model_override("micro_batch", "sequences per micro-batch b"),
      model_override("hidden", "hidden size h"),
      model_override("heads", "attention (query) heads"),
      model_override("kv_heads", "key/value heads (GQA)"),
      model_override("ffn", "MLP inner size (per gate for SwiGLU)"),
      {"swiglu",
       AxisType::integer,
       "gated MLP: 1 on, 0 off, -1 the model's own",
       {std::int64_t{-1}},
       {}},
      {"sequence_parallel",
       AxisType::integer,
       "0: all_reduce after the row-parallel layers (Calculon's tensor_par_comm_type ar); "
       "1: Megatron's sequence parallelism, reduce_scatter and all_gather (rs_ag)",
       {std::int64_t{0}},
       {}},
      {"iterations",
       AxisType::integer,
       "timed blocks, each after a barrier",
       {std::int64_t{10}},
       {}},
      {"warmup", AxisType::integer, "untimed blocks before them", {std::int64_t{2}}, {}},
      {"timeout_s",
       AxisType::real,
       "how long a rank waits for a collective before naming the ranks that never came",
       {60.0},
       {}},
  };
}

gemm::ModelShape point_model(const Point &point) {
  gemm::ModelOverrides o;
  o.seq = point.integer("seq");
  o.micro_batch = point.integer("micro_batch");
  o.hidden = point.integer("hidden");
  o.heads = point.integer("heads");
  o.kv_heads = point.integer("kv_heads");
  o.ffn = point.integer("ffn");
  o.swiglu = point.integer("swiglu");
  return gemm::resolve_model(point.text("model"), o, "model");
}

} // namespace railgauge::block
