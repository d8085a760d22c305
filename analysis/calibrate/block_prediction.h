#pragma once
// The loop closed: block.transformer_tp's measured time beside the time the fitted coefficients
// alone predict for it, with Calculon's per-layer arithmetic (docs/calibrate.md, "A block
// predicted"). The block records are never fitted: the coefficients come from gemm.cpu_blas
// (GEMM efficiency at each of the block's shapes) and collectives.mpi_* runs (α and β per op and
// group size).
//
//   block time = Σ over the block's GEMMs  F / (peak · eff) + mem1 term   (Layer.compute_
//                                          processing_time; no_overlap: +, roofline: max)
//              + Σ over its TP collectives  α + β · S · busfactor(op, t)  (TPComm.compute_net_
//                                          time through Network.time: latency + S·scalar·(1 +
//                                          offset/t) / (bandwidth·efficiency))
// with nothing overlapped (Calculon's tensor_par_overlap none: every TP collective exposed).
// Where r ranks share each core (more ranks × BLAS threads than the host has cores), the core
// runs the GEMMs of r ranks in turns: r × a rank's own call time (lockstep.own_time_s, not the
// lockstep time that waits for the slowest rank), from gemm.cpu_blas records whose ranks had cores
// of their own. Calculon has no such term (one processor per rank: r = 1 on any cluster).
#include <algorithm>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "analysis/calibrate/calibration.h"
#include "analysis/calibrate/core_share.h"
#include "analysis/run_set.h"

namespace railgauge::calibrate {

// The arithmetic, on coefficients already fitted.
// One GEMM: F/(peak·eff) with the memory term added (no_overlap) or overlapped (roofline).
double gemm_time_s(double flops, double peak_tflops, double efficiency, double memory_s,
                   ProcessingMode mode);
// One collective on n ranks of nccl-tests' size S bytes: α + β·S·busfactor(op, n).
double collective_time_s(const std::string &op, double size_bytes, int ranks, double alpha_s,
                         double beta_s_per_byte);

struct BlockPhasePrediction {
  std::string name; // an op of the block: "qkv.fwd" (its GEMMs) or "all_reduce" (its calls)
  std::string kind; // "gemm" or "collective"
  int calls = 0;    // GEMMs or collective calls of the block under this name
  double measured_s = 0;
  std::optional<double> predicted_s;  // nullopt: no coefficient for it
  std::optional<double> step_table_s; // GEMMs: through the fitted matrix step table
  std::string source;                 // which records the coefficient came from
};

struct BlockPrediction {
  std::string run, model; // model: "cpu-small (h 1024, s 256, b 1, 16 heads, ffn 4096)"
  int tp = 0;
  bool sequence_parallel = false;
  CoreShare cores; // ranks and BLAS threads per host, and the run inventory's core count
  // More ranks × BLAS threads than the host has cores: ranks take turns on a core.
  bool shares_cores() const { return cores.shared(); }
  int runs = 1; // runs of this point: the measured times are the median of theirs
  double measured_s = 0, measured_p10_s = 0, measured_p90_s = 0;
  std::vector<double> run_medians_s; // each run's median, ascending: how far the rounds agree
  double measured_gemm_s = 0, measured_collective_s = 0; // the record's phase sums
  std::vector<BlockPhasePrediction> phases;
  std::optional<double> predicted_s, predicted_gemm_s, predicted_collective_s;
  std::optional<double> step_table_s;  // the block with GEMMs through the Calculon step table
  std::vector<std::string> missing;    // coefficients that were not there
  std::optional<double> error() const; // (predicted - measured) / measured
};

// One prediction per block.transformer_tp point (rank 0's records; several runs of a point give
// the median of theirs).
std::vector<BlockPrediction> predict_blocks(const analysis::RunSet &runs, const Calibration &c);

nlohmann::json to_json(const std::vector<BlockPrediction> &predictions);
// Above this share of its median, a block's spread (p10 to p90 of its iterations, or lowest to
// highest of its runs' medians) says the host was not quiet while it ran: the fit report marks
// the row, since an error inside that spread measures the host more than the coefficients.
inline constexpr double kNoisyBlockSpread = 0.10;

// The fit report's section: a table of model, t, measured, predicted, error %, with t marked
// where ranks share cores, rows measured noisily marked, and the error's range where ranks do
// not share cores; empty when there are no block records.
std::string block_prediction_markdown(const nlohmann::json &predictions);

} // namespace railgauge::calibrate
