#pragma once
// The block family's record contract: its key and the parameter and metric names that
// block.transformer_tp writes and calibrate reads (analysis/calibrate/block_prediction.h).
// Header only, so analysis reads block records through it without linking the family.
#include <array>

namespace railgauge::block::record {

inline constexpr const char *kFamily = "block";
inline constexpr const char *kTransformerTp = "block.transformer_tp"; // one block under TP

// Parameters (besides the model's: model, seq, micro_batch, hidden, heads, kv_heads, ffn,
// swiglu, as the gemm family names them)
inline constexpr const char *kTp = "tp"; // ranks of the TP group: the world
inline constexpr const char *kSequenceParallel = "sequence_parallel"; // 0: all_reduce, 1: RS+AG
inline constexpr const char *kDtype = "dtype";              // fp32 (OpenBLAS sgemm, MPI_FLOAT)
inline constexpr const char *kBlasThreads = "blas_threads"; // OpenBLAS threads per rank
inline constexpr const char *kRanksPerHost = "ranks_per_host";

// Metrics
// time_s: the block, per iteration the max over ranks (harness/lockstep.h)
inline constexpr const char *kGemmTimeS = "gemm_time_s"; // GEMM phases: median of rank max
inline constexpr const char *kCollectiveTimeS = "collective_time_s"; // collective phases
// [{"name": "qkv.fwd", "kind": "gemm"|"collective", "op": "qkv.fwd"|"all_reduce", "m", "n",
//   "k", "batch" (gemm) | "size_bytes" (collective), "time_s": median over iterations of the
//   max over ranks}], in block order
inline constexpr const char *kPhases = "phases";
inline constexpr const char *kBlockFlops = "flops_per_block"; // every GEMM of one rank
inline constexpr const char *kBlockTflops = "block_tflops";   // flops_per_block / time_s
inline constexpr const char *kWrongElements = "wrong_elements";

// Phase kinds
inline constexpr const char *kGemmPhase = "gemm";
inline constexpr const char *kCollectivePhase = "collective";

// Written beside the figures: what the data check compared, how the point was set up,
// where a multi-part point's slowest part is
inline constexpr const char *kWrongGemmElements = "wrong_gemm_elements";
inline constexpr const char *kWrongCollectiveElements = "wrong_collective_elements";

inline constexpr std::array kMetrics{
    kGemmTimeS,         kCollectiveTimeS,        kPhases, kBlockFlops, kBlockTflops, kWrongElements,
    kWrongGemmElements, kWrongCollectiveElements};

} // namespace railgauge::block::record
