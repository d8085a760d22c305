#pragma once
// block.transformer_tp: one Megatron transformer block, forward and backward, on every rank of
// an MPI job, with tensor parallelism over the ranks (t = the world size; docs/block.md). Each
// rank runs its share of the block GEMMs (gemm/transformer_shapes.h) as fp32 OpenBLAS sgemm
// calls, row-major, no transposes, exactly as gemm.cpu_blas measures them, and the TP
// collectives between them (tp_block_plan.h) as MPI nonblocking collectives on host memory,
// exactly as the collectives family's MPI benchmarks call them. The output of each step is the
// input of the next where the sizes agree, as in the block.
//
// Measured in lockstep (harness/lockstep.h): a barrier, then one block; the block's time is the
// max over ranks per iteration. Inside the block each rank reads the steady clock after every
// step (about 20 ns each, against milliseconds per step), so the per-phase times come from the
// same iterations, not from a second run.
//
// Data check (after the timed iterations, on one more block): every GEMM's output at sampled
// elements against a long double recomputation (gemm/verify_bound.h), and every collective's
// output on every rank against the sum (all_reduce, reduce_scatter) or the concatenation
// (all_gather) of all ranks' inputs, which the ranks gather for the check.
//
// Built without MPI or OpenBLAS, every point is waived saying which.
#include <cstddef>
#include <functional>
#include <memory>

#include "harness/benchmark.h"

namespace railgauge::block {

// A test hook: called with each collective step's output (float elements) before the data
// check, so a test can corrupt it.
struct BlockTestHooks {
  std::function<void(float *data, std::size_t elements)> before_check;
};

// The benchmark owns its MPI session (collectives/mpi/mpi_session.h), made by its first point.
std::unique_ptr<Benchmark> make_transformer_tp(std::shared_ptr<BlockTestHooks> hooks);

} // namespace railgauge::block
