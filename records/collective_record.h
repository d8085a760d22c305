#pragma once
// The collectives family's record contract (see records/gemm_record.h): keys, the parameter and
// metric names that the family and the nccl-tests importer write and analysis and the shipped
// rules read, and the busbw arithmetic behind them (bus_bandwidth.h, nccl-tests' PERFORMANCE.md).
#include <array>
#include <cstdint>
#include <optional>
#include <string>

#include "harness/metric_names.h"
#include "harness/record_fields.h"
#include "records/bus_bandwidth.h"
#include "records/collective_point_fields.h"
#include "records/metric_field.h"

namespace railgauge::collectives::record {

inline constexpr const char *kFamily = "collectives";
inline constexpr const char *kCategory = "fabric";

// Keys, each written out once here: the library's collective of each kind on each backend, the
// textbook algorithms over point-to-point of the kinds that have them, and the all_reduce beside
// a GEMM.
struct KindKeys {
  Kind kind;
  const char *mpi, *nccl;
  const char *mpi_textbook, *nccl_textbook; // nullptr: no textbook algorithm for the kind
};
inline constexpr KindKeys kKindKeys[] = {
    {Kind::all_reduce, "collectives.mpi_all_reduce", "collectives.nccl_all_reduce",
     "collectives.mpi_textbook_all_reduce", "collectives.nccl_textbook_all_reduce"},
    {Kind::all_gather, "collectives.mpi_all_gather", "collectives.nccl_all_gather",
     "collectives.mpi_textbook_all_gather", "collectives.nccl_textbook_all_gather"},
    {Kind::reduce_scatter, "collectives.mpi_reduce_scatter", "collectives.nccl_reduce_scatter",
     "collectives.mpi_textbook_reduce_scatter", "collectives.nccl_textbook_reduce_scatter"},
    {Kind::alltoall, "collectives.mpi_alltoall", "collectives.nccl_alltoall", nullptr, nullptr},
    {Kind::broadcast, "collectives.mpi_broadcast", "collectives.nccl_broadcast", nullptr, nullptr},
    {Kind::reduce, "collectives.mpi_reduce", "collectives.nccl_reduce", nullptr, nullptr},
    {Kind::sendrecv, "collectives.mpi_sendrecv", "collectives.nccl_sendrecv", nullptr, nullptr},
};
inline constexpr const char *kMpiAllReduceWithGemm = "collectives.mpi_all_reduce_with_gemm";
inline constexpr const char *kNcclAllReduceWithGemm = "collectives.nccl_all_reduce_with_gemm";
// An imported nccl-tests log that stopped before it named its test (an error record)
inline constexpr const char *kNcclUnknown = "collectives.nccl_unknown";

// The keys of `kind`; every Kind has a row.
constexpr const KindKeys &keys_of(Kind kind) {
  for (const auto &row : kKindKeys)
    if (row.kind == kind)
      return row;
  return kKindKeys[0]; // unreachable: a test checks every Kind has its row
}

// Parameters
inline constexpr const char *kSizeBytes = metric::kSizeBytes; // nccl-tests' size: one rank's buffer
inline constexpr const char *kDtype = metric::kDtype;
inline constexpr const char *kBackend = "backend";      // mpi | nccl
inline constexpr const char *kWorldSize = "world_size"; // ranks in the run
inline constexpr const char *kGroupType = "group_type"; // world | tp | dp | ...
inline constexpr const char *kGroupIndex = "group_index";
inline constexpr const char *kGroupSize = "group_size";   // ranks in the point's group
inline constexpr const char *kGroupHosts = "group_hosts"; // hosts the group's ranks ran on
// Where the group's hosts ran different numbers of ranks (8 and 7: a GPU missing from a node),
// the most any of them ran; absent where each ran group_size / group_hosts.
inline constexpr const char *kRanksPerHost = "ranks_per_host";
inline constexpr const char *kGroups = "groups";        // the split: "tp=2+dp=rest", or "world"
inline constexpr const char *kAlgorithm = "algorithm";  // textbook: ring, tree, ...
inline constexpr const char *kSource = metric::kSource; // an import's tool:
inline constexpr const char *kSourceNcclTests = "nccl-tests";
inline constexpr const char *kGpuName =
    metric::kGpuName; // the GPU model (NCCL; nccl-tests' rank lines)
// Axes (params of the record) beside those above; iterations, warmup, timeout_s below
inline constexpr const char *kOp = "op";                  // the reduction: sum, prod, min, max
inline constexpr const char *kInPlace = "in_place";       // in_place | out_of_place (also derived)
inline constexpr const char *kRoot = "root";              // broadcast, reduce: the root rank
inline constexpr const char *kGemmMnk = metric::kGemmMnk; // *_with_gemm: the GEMM load's size
inline constexpr const char *kCudaGraph = "cuda_graph";   // NCCL: on | off
inline constexpr const char *kBuffers = "buffers";        // NCCL: how the buffers are allocated
inline constexpr const char *kLinkGbytesPerS = "link_gbytes_per_s"; // NCCL: the link's rate
inline constexpr const char *kAlltoallCall = "alltoall_call"; // derived: NCCL's call or grouped
// Derived, *_with_gemm: the GEMM load's element types; MPI's CPU GEMM: its BLAS and threads
inline constexpr const char *kGemmDtype = metric::kGemmDtype;
inline constexpr const char *kBlasLibrary = metric::kBlasLibrary;
inline constexpr const char *kBlasThreads = metric::kBlasThreads;

// Metrics
inline constexpr const char *kTimeS = metric::kTimeS; // per iteration, the max over ranks
inline constexpr const char *kAlgbwGbytesPerS = "algbw_gbytes_per_s";
inline constexpr const char *kBusbwGbytesPerS = "busbw_gbytes_per_s";        // median time
inline constexpr const char *kBusbwMaxGbytesPerS = "busbw_max_gbytes_per_s"; // fastest
inline constexpr const char *kWallTimeS = metric::kWallTimeS; // back-to-back, per call
inline constexpr const char *kBusFactor = "bus_factor";
inline constexpr const char *kGemmSlowdown = metric::kGemmSlowdown; // with_gemm: together / alone
// group_type=concurrent: per group type, its time and bandwidth (concurrent_groups.h)
inline constexpr const char *kByGroupType = "by_group_type";
inline constexpr const char *kVerified = metric::kVerified;
inline constexpr const char *kTelemetry = metric::kTelemetry; // NCCL points: this rank's GPU

// Written beside the figures: what the data check compared, how the point was set up,
// where a multi-part point's slowest part is
inline constexpr const char *kWrongElements = metric::kWrongElements; // over every rank
inline constexpr const char *kWrongElementsThisProcess = "wrong_elements_this_process";
inline constexpr const char *kWrongElementsThisRank = "wrong_elements_this_rank";
inline constexpr const char *kWrongElementRanks = "wrong_element_ranks";
inline constexpr const char *kMpiLibrary = "mpi_library";
inline constexpr const char *kNcclVersion = "nccl_version";
inline constexpr const char *kLibrary = "library"; // its fields: kTimeS, kBusbwGbytesPerS, ...
inline constexpr const char *kSlowestRank = metric::kSlowestRank; // ... of library, by_group_type
inline constexpr const char *kTimeRatioToLibrary = "time_ratio_to_library";
inline constexpr const char *kAboveLinkRate = "above_link_rate";
inline constexpr const char *kNote = "note";
inline constexpr const char *kGateTimeouts = "gate_timeouts";
inline constexpr const char *kGemmAloneTflops = metric::kGemmAloneTflops;
inline constexpr const char *kGemmConcurrentTflops = metric::kGemmConcurrentTflops;
inline constexpr const char *kGemmAloneGflops = "gemm_alone_gflops";
inline constexpr const char *kGemmConcurrentGflops = "gemm_concurrent_gflops";
inline constexpr const char *kGemmSlowestRank = "gemm_slowest_rank";
inline constexpr const char *kGemmWrongSamples = metric::kGemmWrongSamples;

// collectives.*_with_gemm's windows (collectives/with_gemm.h) and the wall-clock figures
inline constexpr const char *kAllreduceAloneS = "allreduce_alone_s";
inline constexpr const char *kAllreduceConcurrentS = "allreduce_concurrent_s";
inline constexpr const char *kGemmAloneS = "gemm_alone_s";
inline constexpr const char *kGemmConcurrentS = "gemm_concurrent_s";
inline constexpr const char *kCollectiveSlowdown = "collective_slowdown";
inline constexpr const char *kBusbwAloneGbytesPerS = "busbw_alone_gbytes_per_s";
inline constexpr const char *kBusbwConcurrentGbytesPerS = "busbw_concurrent_gbytes_per_s";
inline constexpr const char *kGemmsPerWindow = "gemms_per_window";
inline constexpr const char *kAllreducesPerWindow = "allreduces_per_window";
inline constexpr const char *kPaddingPerWindow = "padding_per_window";
inline constexpr const char *kPaddingAllReduces = "all_reduces"; // its fields: the calls that pad
inline constexpr const char *kPaddingGemms = "gemms";
inline constexpr const char *kWallBusbwGbytesPerS = "wall_busbw_gbytes_per_s";
// nccl-tests imports: the per-iteration columns (-I 1), the process CPU time (-C), the processes
// of a JSON log and the slowest of them, and the NCCL_* variables the run had (env_<VAR>)
inline constexpr const char *kIterationMinS = "iteration_min_s";
inline constexpr const char *kIterationMaxS = "iteration_max_s";
inline constexpr const char *kIterationP99S = "iteration_p99_s";
inline constexpr const char *kIterationCvPercent = "iteration_cv_percent";
inline constexpr const char *kIterationTimer = "iteration_timer";
inline constexpr const char *kCpuTimeS = "cpu_time_s";
inline constexpr const char *kProcesses = "processes";
inline constexpr const char *kSlowestProcess = "slowest_process";
inline constexpr const char *kSlowestProcessShare = "slowest_process_share";
inline constexpr const char *kEnvPrefix = "env_"; // + the variable: the schema's env_ pattern
inline constexpr const char *kIterations = metric::kIterations; // also an axis: timed calls
// Axes beside iterations (every collective benchmark, and the block's)
inline constexpr const char *kWarmup = "warmup";
inline constexpr const char *kTimeoutS = "timeout_s"; // how long a rank waits for the others

// The field table: every metric a collectives record may carry, its unit and what it means
// (records/metric_field.h). tests/analysis/record_contract_test.cpp holds it to the schema.
inline constexpr std::array kMetrics{
    MetricField{kTelemetry, "", "NCCL points: this rank's GPU's clocks, power and throttling"},
    MetricField{kAlgbwGbytesPerS, "GB/s",
                "nccl-tests' algbw: one rank's bytes over the median time"},
    MetricField{kBusbwGbytesPerS, "GB/s", "nccl-tests' busbw at the median time"},
    MetricField{kBusbwMaxGbytesPerS, "GB/s", "nccl-tests' busbw at the fastest call"},
    MetricField{kWallTimeS, "s", "per call of back-to-back calls; -1 when not run"},
    MetricField{kBusFactor, "ratio", "busbw over algbw for the kind and the group's ranks"},
    MetricField{kGemmSlowdown, "ratio",
                "with_gemm: the GEMM's time beside the collective over alone"},
    MetricField{kByGroupType, "",
                "group_type=concurrent: each group type's size, time and bandwidth"},
    MetricField{kVerified, "", "the point's data check passed"},
    MetricField{kWrongElements, "count", "elements the data check found wrong, over every rank"},
    MetricField{kWrongElementsThisProcess, "count",
                "NCCL: wrong elements in this process's buffers"},
    MetricField{kWrongElementsThisRank, "count", "MPI: wrong elements in this rank's buffer"},
    MetricField{kWrongElementRanks, "", "the ranks whose buffers held wrong elements"},
    MetricField{kMpiLibrary, "", "the MPI library's name and version"},
    MetricField{kNcclVersion, "", "the NCCL library's version"},
    MetricField{kLibrary, "", "textbook: the library collective it is compared with"},
    MetricField{kTimeRatioToLibrary, "ratio", "textbook: its time over the library collective's"},
    MetricField{kAboveLinkRate, "", "busbw above the link rate given (reduced in the switch)"},
    MetricField{kNote, "", "what a reader of the figures must know"},
    MetricField{kGateTimeouts, "count", "NCCL: iterations whose start gate timed out"},
    MetricField{kGemmAloneTflops, "TFLOP/s", "with_gemm (NCCL): the GEMM alone"},
    MetricField{kGemmConcurrentTflops, "TFLOP/s",
                "with_gemm (NCCL): the GEMM beside the collective"},
    MetricField{kGemmAloneGflops, "GFLOP/s", "with_gemm (MPI): the GEMM alone"},
    MetricField{kGemmConcurrentGflops, "GFLOP/s",
                "with_gemm (MPI): the GEMM beside the collective"},
    MetricField{kGemmSlowestRank, "", "with_gemm: the rank whose GEMM slowed most"},
    MetricField{kGemmWrongSamples, "count", "with_gemm: GEMM output samples the check found wrong"},
    MetricField{kAllreduceAloneS, "s", "with_gemm: the all_reduce's median time alone"},
    MetricField{kAllreduceConcurrentS, "s",
                "with_gemm: the all_reduce's median time beside the GEMM"},
    MetricField{kGemmAloneS, "s", "with_gemm: the GEMM's median time alone"},
    MetricField{kGemmConcurrentS, "s", "with_gemm: the GEMM's median time beside the all_reduce"},
    MetricField{kCollectiveSlowdown, "ratio",
                "with_gemm: allreduce_concurrent_s over allreduce_alone_s"},
    MetricField{kBusbwAloneGbytesPerS, "GB/s", "with_gemm: the all_reduce's bus bandwidth alone"},
    MetricField{kBusbwConcurrentGbytesPerS, "GB/s",
                "with_gemm: the all_reduce's bus bandwidth beside the GEMM"},
    MetricField{kGemmsPerWindow, "count", "with_gemm: GEMM calls in one balanced window"},
    MetricField{kAllreducesPerWindow, "count",
                "with_gemm: all_reduce calls in one balanced window"},
    MetricField{kPaddingPerWindow, "", "with_gemm: the untimed calls that last filled the window"},
    MetricField{kWallBusbwGbytesPerS, "GB/s", "bus bandwidth at wall_time_s (back-to-back calls)"},
    MetricField{kIterationMinS, "s", "nccl-tests imports (-I 1): the fastest iteration"},
    MetricField{kIterationMaxS, "s", "nccl-tests imports (-I 1): the slowest iteration"},
    MetricField{kIterationP99S, "s", "nccl-tests imports (-I 1): the 99th percentile iteration"},
    MetricField{kIterationCvPercent, "percent",
                "nccl-tests imports (-I 1): the iterations' coefficient of variation"},
    MetricField{kIterationTimer, "",
                "nccl-tests imports (-I 1): the clock of the iteration figures"},
    MetricField{kCpuTimeS, "s", "nccl-tests imports (-C): the process's CPU time per iteration"},
    MetricField{kProcesses, "count", "nccl-tests JSON imports: the processes the log times"},
    MetricField{kSlowestProcess, "",
                "nccl-tests JSON imports: the process slowest in the most iterations"},
    MetricField{kSlowestProcessShare, "ratio",
                "nccl-tests JSON imports: the share of iterations it was slowest in"},
    MetricField{kIterations, "count", "nccl-tests imports: the timed calls"},
};

// A collective record (the family's or an nccl-tests import), read: the typed view through
// which analysis reads the family. Fields another tool names differently stay with the reader.
struct CollectivePointView {
  std::string key;
  std::string backend, dtype, source;
  std::string groups, group_type; // the split ("tp=2+dp=rest") and this record's group's axis
  std::string algorithm;          // textbook keys only
  std::optional<std::int64_t> group_index, group_size, world_size, group_hosts;
  std::optional<double> size_bytes;
  // The median call; nccl-tests' text output has its wall-clock mean per call instead.
  std::optional<double> time_s;
  std::optional<double> busbw_gbytes_per_s;
  std::optional<double> gemm_slowdown; // *_with_gemm: the GEMM beside the collective / alone

  // A textbook algorithm over point-to-point, measured against the library's own collective.
  bool textbook() const { return !algorithm.empty() || key.find("_textbook_") != key.npos; }
};

// The view of a collectives record, else nullopt.
inline std::optional<CollectivePointView> collective_point_view(const Record &r) {
  namespace f = record_fields;
  if (!f::in_family(r, kFamily))
    return std::nullopt;
  CollectivePointView v;
  v.key = r.key;
  v.backend = f::text(r.params, kBackend).value_or("");
  v.dtype = f::text(r.params, kDtype).value_or("");
  v.source = f::text(r.params, kSource).value_or("");
  v.groups = f::text(r.params, kGroups).value_or("");
  v.group_type = f::text(r.params, kGroupType).value_or("");
  v.algorithm = f::text(r.params, kAlgorithm).value_or("");
  v.group_index = f::integer(r.params, kGroupIndex);
  v.group_size = f::integer(r.params, kGroupSize);
  v.world_size = f::integer(r.params, kWorldSize);
  v.group_hosts = f::integer(r.params, kGroupHosts);
  v.size_bytes = f::number(r.params, kSizeBytes);
  const auto figures = CollectiveFields::read(r.metrics).value_or(CollectiveFields{});
  v.time_s = f::median_time_s(r.metrics);
  if (!v.time_s && v.source == kSourceNcclTests)
    v.time_s = figures.wall_time_s;
  v.busbw_gbytes_per_s = figures.busbw_gbytes_per_s;
  v.gemm_slowdown = f::number(r.metrics, kGemmSlowdown);
  return v;
}

} // namespace railgauge::collectives::record
