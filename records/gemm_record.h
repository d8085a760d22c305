#pragma once
// The gemm family's record contract: its keys and the parameter and metric names that the
// family writes and that check, compare, calibrate, report and the shipped rules read. It and
// the types its views read through (gemm_cublaslt_fields.h) are records/'s, so analysis reads
// records through them without linking the family. A metric renamed here fails
// tests/analysis/record_contract_test.cpp (the schema and the rules name every metric below).
#include <algorithm>
#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <tuple>

#include <fmt/format.h>

#include "harness/metric_names.h"
#include "harness/record.h"
#include "harness/record_fields.h"
#include "records/across_gpu_figures.h"
#include "records/gemm_cublaslt_fields.h"
#include "records/metric_field.h"

namespace railgauge::gemm::record {

inline constexpr const char *kFamily = "gemm";
inline constexpr const char *kCategory = "compute"; // check's category of the family's findings

// Keys
inline constexpr const char *kCublasLt = "gemm.cublaslt";          // transformer shapes at TP t
inline constexpr const char *kCublasLtSize = "gemm.cublaslt_size"; // square and M x N x K sweeps
inline constexpr const char *kBurn = "gemm.burn";                  // bitwise SDC burn-in
inline constexpr const char *kCpuBlas = "gemm.cpu_blas";           // the TP shapes on CPU BLAS
inline constexpr const char *kCpuBlasSize = "gemm.cpu_blas_size";

// Parameters
inline constexpr const char *kDtype = metric::kDtype;
inline constexpr const char *kM = "m";
inline constexpr const char *kN = "n";
inline constexpr const char *kK = "k";
inline constexpr const char *kBatch = "batch";
inline constexpr const char *kModel = "model";
inline constexpr const char *kTp = "tp";          // tensor-parallel degree
inline constexpr const char *kOp = "op";          // "qkv.fwd": the GEMM and its pass
inline constexpr const char *kGpu = metric::kGpu; // CUDA device index
inline constexpr const char *kPeakTflops = "peak_tflops";
inline constexpr const char *kLayer = "gemm"; // qkv, scores, context, out_proj, mlp_up, mlp_down
inline constexpr const char *kPass = "pass";  // fwd, dgrad, wgrad
inline constexpr const char *kGemmCount = "gemm_count"; // GEMMs one call runs (a BMM's dgrad: 2)
inline constexpr const char *kSeq = "seq";
inline constexpr const char *kMicroBatch = "micro_batch";
inline constexpr const char *kLayout = "layout";
inline constexpr const char *kLayoutsFrom = "layouts_from"; // kTrainingLayouts: each pass its own
inline constexpr const char *kTrainingLayouts = "training";
inline constexpr const char *kGpuName = metric::kGpuName;
inline constexpr const char *kSizeOp = "size"; // the op of a size sweep's points
// gemm.cpu_blas*: OpenBLAS threads of each rank, and ranks of the launch on this host (whether
// ranks had cores of their own)
inline constexpr const char *kBlasThreads = metric::kBlasThreads;
inline constexpr const char *kRanksPerHost = "ranks_per_host";
// Derived: the BLAS (CPU) or cuBLASLt (GPU) that ran, the operand copies a measurement rotated
// through, their bytes and the L2 they were sized against (and why), the GPU's L2, the cuBLASLt
// workspace and the candidates the heuristic returned, the GPU's SKU and where its peak came
// from, and gemm.burn's GPUs
inline constexpr const char *kBlasLibrary = metric::kBlasLibrary;
inline constexpr const char *kCublasltVersion = metric::kCublasltVersion;
inline constexpr const char *kOperandSets = "operand_sets"; // peer.*: torch's, as a metric
inline constexpr const char *kOperandBytesRotated = "operand_bytes_rotated";
inline constexpr const char *kL2Policy = "l2_policy";
inline constexpr const char *kL2Bytes = metric::kL2Bytes;
inline constexpr const char *kWorkspaceBytes = "workspace_bytes";
inline constexpr const char *kCandidatesReturned = "candidates_returned";
inline constexpr const char *kGpuSku = "gpu_sku";
inline constexpr const char *kPeakSource = "peak_source";
inline constexpr const char *kPeakTableOrigin = "peak_table_origin";
inline constexpr const char *kGpusBurned = metric::kGpusBurned;
// A TP point's model dimensions (axes that override the model's own, and params of its record)
inline constexpr const char *kHidden = "hidden";
inline constexpr const char *kHeads = "heads";
inline constexpr const char *kKvHeads = "kv_heads";
inline constexpr const char *kFfn = "ffn";
inline constexpr const char *kSwiglu = "swiglu";
// gemm.cpu_blas*: which operands a measurement's copies rotate through (an axis; its values
// below). abc: all three, as gemm.cublaslt does (the default); bc: B and C, while A is read
// where the previous call left it, as a block's GEMM reads the activation the op before it has
// just written; none: one set, called again and again (docs/calibrate.md, "A block predicted").
inline constexpr const char *kRotate = "rotate";
inline constexpr const char *kRotateBc = "bc";
inline constexpr const char *kRotateAbc = "abc";
inline constexpr const char *kRotateNone = "none";
// cuBLASLt: heuristic candidates screened per GEMM (an axis)
inline constexpr const char *kTopK = "top_k";
// cuBLASLt: how a timed batch's calls were launched (a param): one by one on a stream behind a
// blocking kernel, so that a peer's record (scripts/gemm_vs_torch.py, params.peer_timer) can be
// told apart when it launches otherwise (a CUDA graph).
inline constexpr const char *kLaunch = "launch";
inline constexpr const char *kLaunchStream = "stream";

// A transformer layer's GEMMs and passes in block order: the values of kLayer and kPass, and the
// row order of every TP table (op = "<layer>.<pass>").
inline constexpr std::array<const char *, 6> kLayerNames{"qkv",      "scores", "context",
                                                         "out_proj", "mlp_up", "mlp_down"};
inline constexpr std::array<const char *, 3> kPassNames{"fwd", "dgrad", "wgrad"};

// Metrics
inline constexpr const char *kTflops = "tflops";                // 1e12 FLOP/s at the median time
inline constexpr const char *kEfficiency = metric::kEfficiency; // tflops / the dtype's dense peak
// cuBLASLt: the fastest of the heuristic's top-k candidates, beside its first pick (tflops)
inline constexpr const char *kBestTflops = "best_tflops";
inline constexpr const char *kBestEfficiency = "best_efficiency";
// At the fastest sample; gemm.burn (every GPU at once): of the slowest, median and fastest GPU
inline constexpr const char *kTflopsMax = "tflops_max";
inline constexpr const char *kTflopsMin = "tflops_min";
inline constexpr const char *kTflopsMedian = "tflops_median";
// gemm.burn: the names its TFLOP/s over the GPUs are written under
inline constexpr records::AcrossGpuNames kBurnTflopsAcrossGpus{kTflopsMin, kTflopsMedian,
                                                               kTflopsMax};
inline constexpr const char *kFlopsPerCall = "flops_per_call";
inline constexpr const char *kBytesPerCall = metric::kBytesPerCall; // operands and output, once
inline constexpr const char *kVerified = metric::kVerified;

// Written beside the figures: what the data check compared, how the point was set up,
// where a multi-part point's slowest part is
inline constexpr const char *kBestTimeS = "best_time_s";
inline constexpr const char *kBestTflopsMax = "best_tflops_max";
inline constexpr const char *kBestVsHeuristic = "best_vs_heuristic";
inline constexpr const char *kBestIsHeuristic = "best_is_heuristic";
inline constexpr const char *kHeuristicAlgos = "heuristic_algos";
// The kernels the driver launched for the heuristic's and the best picks, by name (CUPTI):
// {kLaunchedHeuristic: [names], kLaunchedBest: [names]}, or "unknown: why"
inline constexpr const char *kLaunchedKernels = "launched_kernels";
inline constexpr const char *kLaunchedHeuristic = "heuristic";
inline constexpr const char *kLaunchedBest = "best";
inline constexpr const char *kBestAlgos = "best_algos";
inline constexpr const char *kCandidates = "candidates";
inline constexpr const char *kRefusedAlgos = "refused_algos";
inline constexpr const char *kLtTypes = "lt_types";
// ... kLtTypes's fields: the CUDA types of A, B, C, the compute and the scale, and the
// transposes cuBLASLt was asked for (gemm/cuda/lt_matmul.cpp)
inline constexpr const char *kLtTypeA = "a";
inline constexpr const char *kLtTypeB = "b";
inline constexpr const char *kLtTypeC = "c";
inline constexpr const char *kLtTypeCompute = "compute";
inline constexpr const char *kLtTypeScale = "scale";
inline constexpr const char *kLtTransA = "cublaslt_trans_a";
inline constexpr const char *kLtTransB = "cublaslt_trans_b";
// ... an algorithm's fields, as cuBLASLt describes it (kHeuristicAlgos, kBestAlgos,
// kRefusedAlgos with kAlgoError, kBurnAlgo); its workspace is kWorkspaceBytes
inline constexpr const char *kAlgoId = "algo_id";
inline constexpr const char *kAlgoTileId = "tile_id";
inline constexpr const char *kAlgoStagesId = "stages_id";
inline constexpr const char *kAlgoSplitK = "split_k";
inline constexpr const char *kAlgoReductionScheme = "reduction_scheme";
inline constexpr const char *kAlgoCtaSwizzling = "cta_swizzling";
inline constexpr const char *kAlgoCustomOption = "custom_option";
inline constexpr const char *kAlgoInnerShapeId = "inner_shape_id";
inline constexpr const char *kAlgoClusterShapeId = "cluster_shape_id";
inline constexpr const char *kAlgoWavesCount = "waves_count";
inline constexpr const char *kAlgoError = "error";
// ... kCandidates' and kRefusedAlgos' entries beside an algorithm's fields: which GEMM of the point
// (its index), the candidate's place in the heuristic's list, its screening time and rate
inline constexpr const char *kAlgoGemm = "gemm";
inline constexpr const char *kAlgoRank = "rank";
inline constexpr const char *kAlgoScreenTimeS = "screen_time_s";
inline constexpr const char *kAlgoScreenTflops = "screen_tflops";
inline constexpr const char *kVerifiedElements = "verified_elements";
inline constexpr const char *kWrongElements = metric::kWrongElements;
inline constexpr const char *kWorstErrorOverBound = "worst_error_over_bound";
inline constexpr const char *kErrorBound = "error_bound";
// ... its fields: the bound relative to |result|, to sum |a||b|, and to that sum per sqrt(k)
inline constexpr const char *kErrorBoundOfResult = "of_result";
inline constexpr const char *kErrorBoundOfAbsSum = "of_abs_sum";
inline constexpr const char *kErrorBoundOfAbsSumPerSqrtK = "of_abs_sum_per_sqrt_k";
inline constexpr const char *kGemms = "gemms"; // {operand, m, n, k, batch} of each GEMM
inline constexpr const char *kGemmOperand = "operand";
inline constexpr const char *kTelemetry = metric::kTelemetry;
inline constexpr const char *kGpus = "gpus";
inline constexpr const char *kSlowestGpu = metric::kSlowestGpu;
inline constexpr const char *kSlowestVsMedian = "slowest_vs_median";
// gemm.burn's kGpus objects: each GPU's fields beside the core's (metric::kPerGpu*, kGpu, kTflops,
// kTflopsMin, kTelemetry): its CUDA index, the GEMMs it ran, how many of them (and the first)
// came out different from the first, the elements that differed or were NaN or Inf, what the
// reference check compared and found wrong, and the cuBLASLt algorithm it ran
inline constexpr const char *kBurnIndex = "index";
inline constexpr const char *kBurnIterations = metric::kIterations;
inline constexpr const char *kBurnBadIterations = "bad_iterations";
inline constexpr const char *kBurnFirstBadIteration = "first_bad_iteration";
inline constexpr const char *kBurnMismatchedElements = "mismatched_elements";
inline constexpr const char *kBurnNanElements = "nan_elements";
inline constexpr const char *kBurnInfElements = "inf_elements";
inline constexpr const char *kBurnReferenceCheckedElements = "reference_checked_elements";
inline constexpr const char *kBurnReferenceWrongElements = "reference_wrong_elements";
inline constexpr const char *kBurnAlgo = "algo";
// gemm.cpu_blas* under a multi-rank launch: {ranks, own_time_s, slowest_rank, slowest_rank_share}
// (time_s is then the max over ranks per call).
inline constexpr const char *kLockstep = "lockstep";
inline constexpr const char *kLockstepOwnTimeS = metric::kOwnTimeS; // its field: this rank's time
inline constexpr const char *kLockstepRanks = metric::kRanks;       // ... and the core's others
inline constexpr const char *kLockstepSlowestRank = metric::kSlowestRank;
inline constexpr const char *kLockstepSlowestRankShare = metric::kSlowestRankShare;

// gemm.cublaslt*: the arithmetic intensity, and the peak the efficiency is of (also a param)
inline constexpr const char *kFlopsPerByte = "flops_per_byte";
inline constexpr const char *kPeakTflopsMetric = kPeakTflops;

// The field table: every metric a gemm record may carry, its unit and what it means
// (records/metric_field.h). tests/analysis/record_contract_test.cpp holds it to the schema.
inline constexpr std::array kMetrics{
    MetricField{kTflops, "TFLOP/s", "1e12 FLOP/s at the median time"},
    MetricField{kEfficiency, "ratio", "tflops over the dtype's dense peak"},
    MetricField{kBestTflops, "TFLOP/s",
                "cuBLASLt: the fastest of the heuristic's top-k candidates"},
    MetricField{kBestEfficiency, "ratio", "cuBLASLt: best_tflops over the dtype's dense peak"},
    MetricField{kTflopsMin, "TFLOP/s", "gemm.burn: the slowest GPU's rate"},
    MetricField{kTflopsMedian, "TFLOP/s", "gemm.burn: the median GPU's rate"},
    MetricField{kTflopsMax, "TFLOP/s", "at the fastest call; gemm.burn: the fastest GPU's rate"},
    MetricField{kFlopsPerCall, "FLOP", "floating-point operations one timed call runs"},
    MetricField{kVerified, "", "the point's data check passed"},
    MetricField{kBestTimeS, "s", "cuBLASLt: the fastest candidate's median time per call"},
    MetricField{kBestTflopsMax, "TFLOP/s", "cuBLASLt: the fastest candidate at its fastest call"},
    MetricField{kBestVsHeuristic, "ratio",
                "cuBLASLt: best_tflops over the heuristic's first pick's"},
    MetricField{kBestIsHeuristic, "", "cuBLASLt: the heuristic's first pick was the fastest"},
    MetricField{kHeuristicAlgos, "", "cuBLASLt: the algorithms the heuristic returned"},
    MetricField{kBestAlgos, "", "cuBLASLt: the fastest candidates"},
    MetricField{kLaunchedKernels, "", "cuBLASLt: the kernels each pick launched, by name"},
    MetricField{kCandidates, "", "cuBLASLt: the candidate algorithms timed"},
    MetricField{kRefusedAlgos, "",
                "cuBLASLt: algorithms cublasLtMatmul refused, each with its error"},
    MetricField{kLtTypes, "", "cuBLASLt: the call's operand, compute and scale types"},
    MetricField{kVerifiedElements, "count", "output elements the data check compared"},
    MetricField{kWrongElements, "count", "output elements outside the data check's bound"},
    MetricField{kWorstErrorOverBound, "ratio", "the data check's largest error over its bound"},
    MetricField{kErrorBound, "", "the data check's bound and how it is set"},
    MetricField{kGemms, "", "the GEMMs one call of the point runs"},
    MetricField{kTelemetry, "",
                "the GPU's clocks, power, temperature and throttling around the point"},
    MetricField{kGpus, "", "gemm.burn: each GPU's figures"},
    MetricField{kSlowestGpu, "", "gemm.burn: the slowest GPU"},
    MetricField{kSlowestVsMedian, "ratio",
                "gemm.burn: the slowest GPU's TFLOP/s over the median GPU's"},
    MetricField{kLockstep, "",
                "multi-rank gemm.cpu_blas*: ranks, own_time_s, the slowest rank and its share"},
    MetricField{kFlopsPerByte, "FLOP/byte",
                "flops_per_call over bytes_per_call: the arithmetic intensity"},
    MetricField{kPeakTflopsMetric, "TFLOP/s", "the dtype's dense peak that efficiency is of"},
};

// The rank of an op ("qkv.fwd") in block order; ops of no known layer and pass come last.
inline int op_block_rank(std::string_view op) {
  int rank = 0;
  for (const char *layer : kLayerNames)
    for (const char *pass : kPassNames) {
      if (op == fmt::format("{}.{}", layer, pass))
        return rank;
      ++rank;
    }
  return rank;
}

// One point of a TP sweep, read from its record: the typed view through which the TP table and
// the report read gemm records. Every point of one sweep table shares its group().
struct TpPointView {
  std::string key;
  std::string model;
  std::string dtype;
  std::int64_t seq = 0;            // 0: a point waived before planning that kept the model's own
  std::int64_t micro_batch = 0;    // likewise
  std::optional<std::int64_t> gpu; // the GPU backend's device index
  std::string layout;              // "nn", ..., or kTrainingLayouts (each pass its own)
  std::string op;                  // "qkv.fwd"
  std::int64_t tp = 0;
  Status status = Status::ok;
  double tflops = 0;                 // ok points
  std::optional<double> efficiency;  // of the dense peak, when the peak is known
  std::optional<double> best_tflops; // the algorithm search's best, GPU backend
  std::string gpu_name;

  // "gpu 0, layout training", without the GPU when per_gpu is false.
  std::string setting(bool per_gpu = true) const {
    std::string text = per_gpu && gpu ? fmt::format("gpu {}", *gpu) : "";
    if (!layout.empty())
      text += fmt::format("{}layout {}", text.empty() ? "" : ", ", layout);
    return text;
  }
  // The sweep a point belongs to: one TP table per group with per_gpu (two GPUs' cells or two
  // layouts never share a cell), one report chart per group without (its lines the median over
  // the GPUs). GPUs of two models never share one: an H100's and an H200's times were once one
  // layer line's medians, a figure of neither GPU.
  using Group = std::tuple<std::string, std::string, std::string, std::int64_t, std::int64_t,
                           std::string, std::string>;
  Group group(bool per_gpu = true) const {
    return {key, model, dtype, seq, micro_batch, gpu_name, setting(per_gpu)};
  }
  // "gemm.cublaslt gpt3-175b bf16 (seq 2048, micro_batch 1, NVIDIA H200, gpu 0, layout training)"
  std::string group_label(bool per_gpu = true) const {
    const std::string s = setting(per_gpu);
    return fmt::format("{} {} {} (seq {}, micro_batch {}{}{}{}{})", key, model, dtype, seq,
                       micro_batch, gpu_name.empty() ? "" : ", ", gpu_name, s.empty() ? "" : ", ",
                       s);
  }
};

// One GEMM call of any gemm record (size sweeps and TP points alike), read: what calibrate fits.
struct GemmCallView {
  std::string key, dtype, gpu_name;
  std::int64_t m = 0, n = 0, k = 0, batch = 1;
  std::optional<double> flops_per_call, bytes_per_call;
  std::optional<double> time_s; // the median call
  double peak_tflops = 0;       // the dtype's dense peak, from metrics or params; 0 unknown
  std::string op, model, layer, pass;
  std::int64_t tp = 0;
  int gemm_count = 1;                       // GEMMs one call runs (a BMM's dgrad: 2)
  int blas_threads = 0, ranks_per_host = 0; // CPU backend; 0 where not recorded
  // In lockstep (metrics.lockstep): this rank's own median call, without the wait for the others
  std::optional<double> own_time_s;
};

// The view of a gemm record, else nullopt.
inline std::optional<GemmCallView> gemm_call_view(const Record &r) {
  namespace f = record_fields;
  if (!f::in_family(r, kFamily))
    return std::nullopt;
  const auto &p = r.params;
  GemmCallView v;
  v.key = r.key;
  v.dtype = f::text(p, kDtype).value_or("");
  v.gpu_name = f::text(p, kGpuName).value_or("");
  v.m = f::integer(p, kM).value_or(0);
  v.n = f::integer(p, kN).value_or(0);
  v.k = f::integer(p, kK).value_or(0);
  v.batch = f::integer(p, kBatch).value_or(1);
  v.flops_per_call = f::number(r.metrics, kFlopsPerCall);
  v.bytes_per_call = f::number(r.metrics, kBytesPerCall);
  v.time_s = f::median_time_s(r.metrics);
  v.peak_tflops = std::max(f::number(r.metrics, kPeakTflops).value_or(0),
                           f::number(p, kPeakTflops).value_or(0));
  v.op = f::text(p, kOp).value_or("");
  v.model = f::text(p, kModel).value_or("");
  v.layer = f::text(p, kLayer).value_or("");
  v.pass = f::text(p, kPass).value_or("");
  v.tp = f::integer(p, kTp).value_or(0);
  v.gemm_count = std::max(1, static_cast<int>(f::integer(p, kGemmCount).value_or(1)));
  v.blas_threads = static_cast<int>(f::integer(p, kBlasThreads).value_or(0));
  v.ranks_per_host = static_cast<int>(f::integer(p, kRanksPerHost).value_or(0));
  if (const auto *lockstep = f::field(r.metrics, kLockstep))
    if (const auto *own = f::field(*lockstep, kLockstepOwnTimeS))
      v.own_time_s = f::number(*own, metric::summary::kMedian);
  return v;
}

// The view of a gemm record that is a point of a TP sweep (it has `tp` and an op), else nullopt:
// size sweeps, other families. A point waived before it was planned (a t that does not split the
// model) has no `op`: its gemm and pass axes name it.
inline std::optional<TpPointView> tp_point_view(const Record &r) {
  namespace f = record_fields;
  const auto text_param = [](const nlohmann::json &p, const char *name) {
    return f::text(p, name).value_or("");
  };
  const auto int_param = [](const nlohmann::json &p, const char *name) {
    return f::integer(p, name).value_or(0);
  };
  if (!f::in_family(r, kFamily) || !f::integer(r.params, kTp))
    return std::nullopt;
  TpPointView v;
  v.op = text_param(r.params, kOp);
  if (v.op.empty() && !text_param(r.params, kLayer).empty())
    v.op = text_param(r.params, kLayer) + "." + text_param(r.params, kPass);
  if (v.op.empty() || v.op == kSizeOp)
    return std::nullopt;
  v.key = r.key;
  v.model = text_param(r.params, kModel);
  v.dtype = text_param(r.params, kDtype);
  v.seq = int_param(r.params, kSeq);
  v.micro_batch = int_param(r.params, kMicroBatch);
  v.tp = *f::integer(r.params, kTp);
  if (const auto *gpu = f::field(r.params, kGpu); gpu && gpu->is_number_integer())
    v.gpu = gpu->get<std::int64_t>();
  // Training layouts differ per pass (fwd nt, dgrad nn, ...): one table holds them all.
  v.layout = text_param(r.params, kLayoutsFrom) == kTrainingLayouts ? std::string(kTrainingLayouts)
                                                                    : text_param(r.params, kLayout);
  v.status = r.status;
  v.gpu_name = text_param(r.params, kGpuName);
  // An ok point's figures, through the types its writer wrote them with
  if (const auto rates = GemmRates::read(r.metrics); rates && r.status == Status::ok) {
    v.tflops = rates->tflops;
    v.efficiency = rates->efficiency;
    if (const auto best = BestPick::read(r.metrics))
      v.best_tflops = best->tflops;
  }
  return v;
}

} // namespace railgauge::gemm::record
