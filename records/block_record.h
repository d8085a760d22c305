#pragma once
// The block family's record contract: its key and the parameter and metric names that
// block.transformer_tp writes and calibrate reads (analysis/calibrate/block_prediction.h).
// Header only, so analysis reads block records through it without linking the family.
#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "harness/metric_names.h"
#include "harness/record_fields.h"
#include "records/block_point_fields.h"
#include "records/collective_record.h"
#include "records/gemm_record.h"
#include "records/metric_field.h"

namespace railgauge::block::record {

inline constexpr const char *kFamily = "block";
inline constexpr const char *kTransformerTp = "block.transformer_tp"; // one block under TP
// The same block on GPUs: bf16 cuBLASLt GEMMs and NCCL collectives, one rank per GPU
inline constexpr const char *kTransformerTpGpu = "block.transformer_tp_gpu";

// Parameters (and the model's, below), named as the gemm family names them
inline constexpr const char *kTp = gemm::record::kTp; // ranks of the TP group: the world
inline constexpr const char *kSequenceParallel = "sequence_parallel"; // 0: all_reduce, 1: RS+AG
// fp32 (OpenBLAS sgemm, MPI_FLOAT), bf16 (GPU)
inline constexpr const char *kDtype = gemm::record::kDtype;
inline constexpr const char *kBlasThreads = gemm::record::kBlasThreads; // OpenBLAS, per rank
inline constexpr const char *kRanksPerHost = gemm::record::kRanksPerHost;
inline constexpr const char *kMpiLibrary = collectives::record::kMpiLibrary; // the CPU block
// Derived: the GEMMs' library and layout (row_major_nn on the CPU, training on GPUs), and the GPU
// block's GPUs per process and their model
inline constexpr const char *kBlasLibrary = metric::kBlasLibrary;
inline constexpr const char *kLayout = gemm::record::kLayout;
inline constexpr const char *kCublasltVersion = metric::kCublasltVersion;
inline constexpr const char *kGpusPerProcess = "gpus_per_process";
inline constexpr const char *kGpuName = metric::kGpuName;
// Axes the block shares with the collectives family: timed and untimed blocks, and how long a
// rank waits for a collective
inline constexpr const char *kIterations = collectives::record::kIterations;
inline constexpr const char *kWarmup = collectives::record::kWarmup;
inline constexpr const char *kTimeoutS = collectives::record::kTimeoutS;

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
inline constexpr const char *kWrongElements = metric::kWrongElements;
inline constexpr const char *kVerified = metric::kVerified;

// Phase kinds
inline constexpr const char *kGemmPhase = "gemm";
inline constexpr const char *kCollectivePhase = "collective";
// A phase's fields, named as the families name them
inline constexpr const char *kPhaseName = "name";
inline constexpr const char *kPhaseKind = "kind";
inline constexpr const char *kPhaseOp = gemm::record::kOp;
inline constexpr const char *kPhaseM = gemm::record::kM;
inline constexpr const char *kPhaseN = gemm::record::kN;
inline constexpr const char *kPhaseK = gemm::record::kK;
inline constexpr const char *kPhaseBatch = gemm::record::kBatch;
inline constexpr const char *kPhaseSizeBytes = collectives::record::kSizeBytes;
inline constexpr const char *kPhaseTimeS = metric::kTimeS;

// Written beside the figures: what the data check compared, how the point was set up,
// where a multi-part point's slowest part is
inline constexpr const char *kWrongGemmElements = "wrong_gemm_elements";
inline constexpr const char *kWrongCollectiveElements = "wrong_collective_elements";
inline constexpr const char *kTelemetry = metric::kTelemetry; // the GPU block: this rank's GPU
// The GPU block: the cuBLASLt algorithms a GEMM phase refused (gemm.cublaslt's field)
inline constexpr const char *kRefusedAlgos = gemm::record::kRefusedAlgos;
// ... each beside the algorithm's fields: the step of the block whose GEMM refused it
inline constexpr const char *kRefusedAlgoStep = "step";

// The field table: every metric a block record may carry, its unit and what it means
// (records/metric_field.h). tests/analysis/record_contract_test.cpp holds it to the schema.
inline constexpr std::array kMetrics{
    MetricField{kGemmTimeS, "s",
                "the GEMM phases of one block: median over iterations of the rank max"},
    MetricField{kCollectiveTimeS, "s", "the collective phases of one block, as gemm_time_s"},
    MetricField{kPhases, "", "every phase in block order with its median time"},
    MetricField{kBlockFlops, "FLOP",
                "the floating-point operations of one rank's GEMMs in one block"},
    MetricField{kBlockTflops, "TFLOP/s", "flops_per_block over the block's time"},
    MetricField{kWrongElements, "count", "elements the data check found wrong"},
    MetricField{kWrongGemmElements, "count", "GEMM output elements outside the data check's bound"},
    MetricField{kWrongCollectiveElements, "count", "collective output elements that are wrong"},
    MetricField{kTelemetry, "", "the GPU block: this rank's GPU's clocks, power and throttling"},
    MetricField{kRefusedAlgos, "", "the GPU block: cuBLASLt algorithms a GEMM phase refused"},
};

// The model's parameters, named as the gemm family's TP points name them (kv_heads and swiglu
// are written too; calibrate does not read them)
inline constexpr const char *kModel = gemm::record::kModel;
inline constexpr const char *kHidden = gemm::record::kHidden;
inline constexpr const char *kSeq = gemm::record::kSeq;
inline constexpr const char *kMicroBatch = gemm::record::kMicroBatch;
inline constexpr const char *kHeads = gemm::record::kHeads;
inline constexpr const char *kFfn = gemm::record::kFfn;
inline constexpr const char *kKvHeads = gemm::record::kKvHeads;
inline constexpr const char *kSwiglu = gemm::record::kSwiglu;

// A block record, read: the typed view through which calibrate reads it.
struct BlockPointView {
  std::string key; // kTransformerTp or kTransformerTpGpu
  std::string model;
  std::string dtype = "fp32"; // of the GEMMs (and the collectives' elements)
  double hidden = 0, seq = 0, micro_batch = 0, heads = 0, ffn = 0;
  int tp = 1;
  bool sequence_parallel = false;
  int blas_threads = 0, ranks_per_host = 0;
  std::optional<double> time_s, time_p10_s, time_p90_s; // the block, per iteration
  double gemm_time_s = 0, collective_time_s = 0;
  std::optional<std::vector<PhaseFields>> phases; // in block order; nullopt: none written
};

// The view of a block.transformer_tp or block.transformer_tp_gpu record, else nullopt.
inline std::optional<BlockPointView> block_point_view(const Record &r) {
  namespace f = record_fields;
  if (r.key != kTransformerTp && r.key != kTransformerTpGpu)
    return std::nullopt;
  BlockPointView v;
  v.key = r.key;
  v.dtype = f::text(r.params, kDtype).value_or("fp32");
  v.model = f::text(r.params, kModel).value_or("?");
  v.hidden = f::number(r.params, kHidden).value_or(0);
  v.seq = f::number(r.params, kSeq).value_or(0);
  v.micro_batch = f::number(r.params, kMicroBatch).value_or(0);
  v.heads = f::number(r.params, kHeads).value_or(0);
  v.ffn = f::number(r.params, kFfn).value_or(0);
  v.tp = static_cast<int>(f::integer(r.params, kTp).value_or(1));
  v.sequence_parallel = f::number(r.params, kSequenceParallel).value_or(0) != 0;
  v.blas_threads = static_cast<int>(f::integer(r.params, kBlasThreads).value_or(0));
  v.ranks_per_host = static_cast<int>(f::integer(r.params, kRanksPerHost).value_or(0));
  v.time_s = f::median_time_s(r.metrics);
  v.time_p10_s = f::time_s_at(r.metrics, metric::summary::kP10);
  v.time_p90_s = f::time_s_at(r.metrics, metric::summary::kP90);
  auto figures = BlockFigures::read(r.metrics);
  v.gemm_time_s = figures.gemm_time_s.value_or(0);
  v.collective_time_s = figures.collective_time_s.value_or(0);
  v.phases = std::move(figures.phases);
  return v;
}

} // namespace railgauge::block::record
