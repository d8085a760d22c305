#pragma once
// The steps of one Megatron transformer block on one rank of a tensor-parallel group of t
// ranks, in the order Megatron-LM runs them (docs/block.md): the block GEMMs of
// gemm/transformer_shapes.h and, between them, the TP collectives.
//
//   without sequence parallelism (Megatron's f and g operators; Calculon's tensor_par_comm_type
//   "ar"):
//     fwd  qkv, scores, context, out_proj, all_reduce, mlp_up, mlp_down, all_reduce
//     bwd  mlp_down dgrad+wgrad, mlp_up dgrad, all_reduce, mlp_up wgrad, out_proj dgrad+wgrad,
//          context dgrad, scores dgrad, qkv dgrad, all_reduce, qkv wgrad
//   with sequence parallelism (Calculon's "rs_ag"): every all_reduce becomes a reduce_scatter
//   and an all_gather is added where the activations (fwd) or their gradients (bwd) enter a
//   column-parallel layer:
//     fwd  all_gather, qkv, ..., out_proj, reduce_scatter, all_gather, mlp_up, mlp_down,
//          reduce_scatter
//     bwd  all_gather, mlp_down dgrad+wgrad, mlp_up dgrad, reduce_scatter, mlp_up wgrad,
//          all_gather, out_proj dgrad+wgrad, context, scores, qkv dgrad, reduce_scatter,
//          qkv wgrad
//   (the gathered input is kept for the wgrad GEMMs, not gathered again: Calculon's
//   seq_par_ag_redo off).
//
// Every collective moves the block's activation, T·h elements (T = s·b tokens): nccl-tests'
// size, which is Calculon's TPComm comm_size. With t = 1 there are no collectives.
#include <cstdint>
#include <string>
#include <vector>

#include "gemm/transformer_shapes.h"

namespace railgauge::block {

enum class StepKind { gemm, collective };
enum class CollectiveOp { all_reduce, all_gather, reduce_scatter };

struct BlockStep {
  StepKind kind = StepKind::gemm;
  std::string name;           // "qkv.fwd", "context.dgrad.dv", "all_reduce.attn.fwd"
  gemm::TransformerGemm gemm; // kind gemm
  CollectiveOp op = CollectiveOp::all_reduce;
  std::int64_t size_elements = 0; // kind collective: nccl-tests' size, in elements
};

const char *to_string(CollectiveOp op);

// The steps above. Throws InputError when `tp` does not split the model (tp_split_problem).
std::vector<BlockStep> tp_block_steps(const gemm::ModelShape &model, int tp,
                                      bool sequence_parallel);

// 2·M·N·K·batch over the GEMM steps.
double block_flops(const std::vector<BlockStep> &steps);

} // namespace railgauge::block
