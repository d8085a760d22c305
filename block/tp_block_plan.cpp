#include "block/tp_block_plan.h"

#include <fmt/format.h>

namespace railgauge::block {
namespace {

using gemm::Layer;
using gemm::Pass;

struct Builder {
  const gemm::ModelShape &model;
  int tp;
  std::vector<BlockStep> steps;

  void gemms(Layer layer, Pass pass) {
    for (auto &g : gemm::transformer_gemms(model, tp, layer, pass)) {
      BlockStep s;
      s.kind = StepKind::gemm;
      s.name = g.operand.empty() ? g.op() : fmt::format("{}.{}", g.op(), g.operand);
      s.gemm = std::move(g);
      steps.push_back(std::move(s));
    }
  }
  void collective(CollectiveOp op, const char *where) {
    if (tp == 1)
      return; // one rank holds the whole activation: nothing to reduce or gather
    BlockStep s;
    s.kind = StepKind::collective;
    s.name = fmt::format("{}.{}", to_string(op), where);
    s.op = op;
    s.size_elements = model.tokens() * model.hidden;
    steps.push_back(std::move(s));
  }
};

} // namespace

const char *to_string(CollectiveOp op) {
  switch (op) {
  case CollectiveOp::all_reduce:
    return "all_reduce";
  case CollectiveOp::all_gather:
    return "all_gather";
  case CollectiveOp::reduce_scatter:
    return "reduce_scatter";
  }
  return "?";
}

std::vector<BlockStep> tp_block_steps(const gemm::ModelShape &model, int tp,
                                      bool sequence_parallel) {
  // transformer_gemms() throws InputError with tp_split_problem()'s reason.
  Builder b{model, tp, {}};
  const auto gather = [&](const char *where) {
    if (sequence_parallel)
      b.collective(CollectiveOp::all_gather, where);
  };
  const auto reduce = [&](const char *where) {
    b.collective(sequence_parallel ? CollectiveOp::reduce_scatter : CollectiveOp::all_reduce,
                 where);
  };
  // Forward: attention, then the MLP.
  gather("attn.fwd");
  b.gemms(Layer::qkv, Pass::fwd);
  b.gemms(Layer::scores, Pass::fwd);
  b.gemms(Layer::context, Pass::fwd);
  b.gemms(Layer::out_proj, Pass::fwd);
  reduce("attn.fwd");
  gather("mlp.fwd");
  b.gemms(Layer::mlp_up, Pass::fwd);
  b.gemms(Layer::mlp_down, Pass::fwd);
  reduce("mlp.fwd");
  // Backward: the MLP, then attention; a column-parallel layer's input gradient is reduced
  // across the ranks (the f operator's backward) before the layer below needs it.
  gather("mlp.bwd");
  b.gemms(Layer::mlp_down, Pass::dgrad);
  b.gemms(Layer::mlp_down, Pass::wgrad);
  b.gemms(Layer::mlp_up, Pass::dgrad);
  reduce("mlp.bwd");
  b.gemms(Layer::mlp_up, Pass::wgrad);
  gather("attn.bwd");
  b.gemms(Layer::out_proj, Pass::dgrad);
  b.gemms(Layer::out_proj, Pass::wgrad);
  b.gemms(Layer::context, Pass::dgrad);
  b.gemms(Layer::scores, Pass::dgrad);
  b.gemms(Layer::qkv, Pass::dgrad);
  reduce("attn.bwd");
  b.gemms(Layer::qkv, Pass::wgrad);
  return std::move(b.steps);
}

double block_flops(const std::vector<BlockStep> &steps) {
  double f = 0;
  for (const auto &s : steps)
    if (s.kind == StepKind::gemm)
      f += gemm::gemm_flops(s.gemm.shape);
  return f;
}

} // namespace railgauge::block
