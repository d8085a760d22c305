#pragma once
// The gemm family's record contract: its keys and the parameter and metric names that the
// family writes and that check, compare, calibrate, report and the shipped rules read. Header
// only, so analysis reads records through it without linking the family. A metric renamed here
// fails tests/results/record_contract_test (the schema and the rules name every metric below).
#include <array>

#include "harness/metric_names.h"

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
inline constexpr const char *kDtype = "dtype";
inline constexpr const char *kM = "m";
inline constexpr const char *kN = "n";
inline constexpr const char *kK = "k";
inline constexpr const char *kBatch = "batch";
inline constexpr const char *kModel = "model";
inline constexpr const char *kTp = "tp";   // tensor-parallel degree
inline constexpr const char *kOp = "op";   // "qkv.fwd": the GEMM and its pass
inline constexpr const char *kGpu = "gpu"; // CUDA device index
inline constexpr const char *kPeakTflops = "peak_tflops";
inline constexpr const char *kLayer = "gemm"; // qkv, scores, context, out_proj, mlp_up, mlp_down
inline constexpr const char *kPass = "pass";  // fwd, dgrad, wgrad
inline constexpr const char *kGemmCount = "gemm_count"; // GEMMs one call runs (a BMM's dgrad: 2)

// Metrics
inline constexpr const char *kTflops = "tflops";         // 1e12 FLOP/s at the median time
inline constexpr const char *kEfficiency = "efficiency"; // tflops / the dense peak of the dtype
// cuBLASLt: the fastest of the heuristic's top-k candidates, beside its first pick (tflops)
inline constexpr const char *kBestTflops = "best_tflops";
inline constexpr const char *kBestEfficiency = "best_efficiency";
// At the fastest sample; gemm.burn (every GPU at once): of the slowest, median and fastest GPU
inline constexpr const char *kTflopsMax = "tflops_max";
inline constexpr const char *kTflopsMin = "tflops_min";
inline constexpr const char *kTflopsMedian = "tflops_median";
inline constexpr const char *kFlopsPerCall = "flops_per_call";
inline constexpr const char *kBytesPerCall = metric::kBytesPerCall; // operands and output, once
inline constexpr const char *kVerified = metric::kVerified;

inline constexpr std::array kMetrics{kTflops,         kEfficiency,   kBestTflops,
                                     kBestEfficiency, kTflopsMin,    kTflopsMedian,
                                     kTflopsMax,      kFlopsPerCall, kVerified};

} // namespace railgauge::gemm::record
