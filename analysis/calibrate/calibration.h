#pragma once
// A calibration: every coefficient set fitted from the samples, or taken from a labelled
// assumption where nothing was measured, with its held-out error. The writers (railgauge's
// coefficient file, the Calculon system file, the ASTRA-sim network file, the fit report) only
// format what is here.
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "analysis/calibrate/assumptions.h"
#include "analysis/calibrate/bootstrap.h"
#include "analysis/calibrate/robust_fit.h"
#include "analysis/calibrate/samples.h"
#include "analysis/calibrate/step_table.h"
#include "analysis/calibrate/tier_decomposition.h"

namespace railgauge::calibrate {

enum class ProcessingMode { no_overlap, roofline };

struct CalibrateOptions {
  ProcessingMode mode = ProcessingMode::no_overlap;
  int max_steps = 8; // most rows a fitted efficiency table may have
  int folds = 5;     // k of the k-fold held-out error
  std::uint64_t seed = 1;
};

// The error of a coefficient set's model on measured points.
struct FitQuality {
  std::size_t points = 0;
  std::optional<HeldOutError> held_out; // nullopt: too few points to hold any out
  HeldOutError in_sample;
};

// One Calculon efficiency table (matrix.<dt>, vector.<dt>, mem1, mem2): a peak and step rows.
struct TableFit {
  std::string name;   // "matrix.float32", "mem1", ...
  std::string x_unit; // "flops" or "bytes": the unit of the thresholds in `table`
  Sourced peak;       // TFLOP/s (matrix, vector) or GB/s (mem1, mem2)
  bool measured = false;
  std::string source; // of the table: "measured: ..." or an assumption's label
  StepTable table;    // thresholds in x_unit (FLOPs or bytes)
  std::vector<std::optional<Interval>> row_intervals; // of each row's efficiency (measured)
  int steps = 0;
  double max_efficiency = 1.0; // no row above it (a GEMM table: the best efficiency measured)
  FitQuality quality;
  std::vector<std::string> notes;
};

struct AlphaBeta {
  double alpha_s = 0;
  double beta_s_per_byte = 0; // seconds per byte of size·factor
  std::optional<Interval> alpha_interval, beta_interval;
  FitQuality quality;
};

struct CollectiveFit {
  std::string op;
  AlphaBeta fit;                       // independent fit of this op
  nlohmann::json table;                // per (ranks, size): time, algbw, busbw
  std::size_t single_rank_samples = 0; // n = 1 points: no bandwidth term, not fitted
};

struct NetworkTier {
  std::string name; // kScaleUp or kScaleOut
  int index = 0;    // Calculon's networks[] index
  bool measured = false;
  std::map<std::string, CollectiveFit> ops;
  // The model Calculon can express: one latency for the tier, one β per op.
  std::optional<FitQuality> joint_quality;
  double joint_alpha_s = 0;
  std::map<std::string, double> joint_beta_s_per_byte;
  std::optional<Interval> joint_alpha_interval;
  std::map<std::string, std::optional<Interval>> joint_beta_interval;
  int group_ranks = 0; // the median group size of the fitted points
  int group_hosts = 0; // hosts of the largest group measured (0: unknown)
  // Set when the tier's points span nodes of several GPUs each: its βs are then per byte through
  // one GPU's share of the node's NICs (tier_decomposition.h), and this says how they were had.
  std::optional<TierDecomposition> decomposition;

  Sourced bandwidth_gbytes_per_s, efficiency, size, latency_s, processor_usage;
  bool must_be_filled = false;
  // Calculon ops: scalar, offset (nullopt: null, p2p) and where they came from.
  std::map<std::string, std::pair<double, std::optional<double>>> calculon_ops;
  std::map<std::string, std::string> calculon_op_source;
};

// One offload path: pinned and pageable host memory, near and far NUMA placement are different
// copy engines' paths with their own α and β, never one fit.
struct OffloadFit {
  std::string direction;    // h2d, d2h, ...
  std::string host_memory;  // pinned, pageable, ...
  std::string placement;    // near, far
  std::string name() const; // "<direction>.<host_memory>.<placement>", e.g. "h2d.pinned.near"
  AlphaBeta fit;
  nlohmann::json table; // per size: time, GB/s
};

struct P2pFit {
  std::string verb, measure; // write/read/send × latency/bandwidth
  AlphaBeta fit;
};

struct GemmShapeRow {
  GemmSample sample;
  double tflops = 0, efficiency = 0;
  double memory_s = 0;           // the memory term Calculon adds (no_overlap), 0 in roofline
  double compute_efficiency = 0; // after taking the memory term out
};

struct Calibration {
  CalibrateOptions options;
  std::vector<std::string> runs;          // the directories read
  std::vector<std::string> run_ids;       // distinct runs: an mpirun's rank directories are one run
  std::map<std::string, TableFit> matrix; // by Calculon dtype
  std::map<std::string, TableFit> gemm_by_dtype; // by railgauge dtype (fp64 included)
  std::map<std::string, std::vector<GemmShapeRow>> gemm_shapes; // by railgauge dtype
  std::map<std::string, TableFit> vector;                       // by Calculon dtype
  TableFit mem1, mem2;
  Sourced mem1_gib, mem2_gib;                     // capacities (GiB = 2^30 bytes)
  std::string mem1_tier;                          // "hbm" or "host": which records mem1 stands for
  std::map<std::string, TableFit> memory_by_tier; // hbm, host
  std::vector<OffloadFit> offload;
  std::vector<NetworkTier> networks; // scale_up, scale_out
  std::vector<P2pFit> p2p;
  nlohmann::json overlap = nlohmann::json::object();
  std::vector<std::string> notes; // what was not measured, and other caveats
  Samples samples;
  Assumptions assumptions;
};

Calibration calibrate(const analysis::RunSet &runs, const Assumptions &assumptions,
                      const CalibrateOptions &options);

// t = α + β·x fitted robustly on (x, t) with k-fold held-out error; each held-out point's error
// is kept under size_of[i] (the size an execution asks for, e.g. a collective's S where x is its
// bus bytes), else under x.
AlphaBeta fit_alpha_beta(const std::vector<std::pair<double, double>> &x_t, int folds,
                         std::uint64_t seed, const std::vector<double> *size_of = nullptr);

// The bus factor that turns nccl-tests' size into bytes on each link (collectives/
// bus_bandwidth.h): all_reduce 2(n-1)/n; all_gather, reduce_scatter, alltoall (n-1)/n; else 1.
double bus_factor(const std::string &op, int ranks);

} // namespace railgauge::calibrate
