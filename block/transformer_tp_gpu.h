#pragma once
// block.transformer_tp_gpu: block.transformer_tp's block (tp_block_plan.h) on GPUs, one rank
// per GPU, as Megatron-LM runs it: the block GEMMs as bf16 cuBLASLt calls in their training
// layouts (fwd nt, dgrad nn, wgrad tn: gemm/transformer_shapes.h), each with the heuristic's
// first algorithm that runs, the calls gemm.cublaslt measures; the TP collectives as NCCL bf16
// calls on the same stream, the calls collectives.nccl_<kind> measure. t = the world: the ranks
// srun or mpirun started (one GPU each), or every GPU of a process started alone. Nothing
// overlaps: each step waits for the one before, as in the block without communication overlap.
//
// Data flow: a GEMM reads the previous step's output where the element counts agree, else its
// own seeded operand; its weights are seeded and alpha = 1/√K keeps chained activations near 1.
// A collective reads its own seeded input (collectives/dtype.h's fill_input, exact small
// integers), so its output is checked exactly, as collectives.nccl_<kind> checks it; the next
// GEMM reads that output.
//
// Timing: NCCL's lockstep loop (collectives/nccl/nccl_point.h): per iteration the streams are
// held while the host enqueues the block, then CUDA events time it; the block's time is the max
// over ranks. An event after every step gives the per-phase times of the same iterations.
//
// Data check on one more block: every GEMM's output at sampled elements against fp64 on the GPU
// (gemm/cuda/gemm_kernels.h, the bf16 bound of gemm/verify_bound.h), every collective's whole
// output against the exact expected values; the wrong counts are summed over ranks.
//
// Built without CUDA or NCCL, every point is waived saying which; without a GPU, saying why.
#include <cstdint>
#include <functional>
#include <memory>

#include "harness/benchmark.h"

namespace railgauge::block {

// A test hook: called with each GEMM step's output (device memory, bytes, the CUDA device)
// before the data check, so a test can corrupt it.
struct GpuBlockTestHooks {
  std::function<void(void *device_output, std::uint64_t bytes, int device)> before_check;
};

std::unique_ptr<Benchmark> make_transformer_tp_gpu(std::shared_ptr<GpuBlockTestHooks> hooks);

} // namespace railgauge::block
