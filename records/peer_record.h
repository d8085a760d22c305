#pragma once
// Records of other tools' figures: the peer comparisons that scripts/*_vs_*.py write (keys
// peer.torch_matmul, peer.torch_copy, peer.nvbandwidth, peer.railgauge_aa: railgauge's figure
// beside the peer's at one point) and what an imported output carries beyond the families' names.
// Header only: the record schema and the contract test read the names from here.
#include <array>

#include "harness/metric_names.h"
#include "records/gemm_record.h"
#include "records/metric_field.h"

namespace railgauge::peer::record {

inline constexpr const char *kOursTflops = "ours_tflops";
inline constexpr const char *kOursBestTflops = "ours_best_tflops";
inline constexpr const char *kOursGbytesPerS = "ours_gbytes_per_s";
inline constexpr const char *kOursH2dGbytesPerS = "ours_h2d_gbytes_per_s";
inline constexpr const char *kOursD2hGbytesPerS = "ours_d2h_gbytes_per_s";
inline constexpr const char *kOursVsTorch = "ours_vs_torch"; // railgauge's figure / torch's
inline constexpr const char *kOursVsNvbandwidth = "ours_vs_nvbandwidth";
// peer.railgauge_aa (scripts/gemm_aa_control.py): railgauge against itself, interleaved
inline constexpr const char *kOursVsRailgauge = "ours_vs_railgauge";
inline constexpr const char *kOursMetric = "ours_metric";   // the railgauge metric compared
inline constexpr const char *kOursRecords = "ours_records"; // records the figure is the median of
// torch's operand sets, named as gemm's rotation names its own (a param there, a metric here)
inline constexpr const char *kOperandSets = gemm::record::kOperandSets;
inline constexpr const char *kNvbandwidthReportedGbytesPerS = "nvbandwidth_reported_gbytes_per_s";
inline constexpr const char *kPeerCountingFactor = "peer_counting_factor";
// Interleaved rounds (scripts/peer_pairs.py): each side's seconds per call per round, the
// per-round ratios with their interval and spread, and the verdict they allow.
inline constexpr const char *kSamples = "samples";
inline constexpr const char *kEnqueueAhead = "enqueue_ahead";
inline constexpr const char *kOursRoundsS = "ours_rounds_s";
inline constexpr const char *kPeerRoundsS = "peer_rounds_s";
inline constexpr const char *kRoundRatios = "round_ratios";
inline constexpr const char *kRatio = "ratio";
inline constexpr const char *kRatioP10 = "ratio_p10";
inline constexpr const char *kRatioP90 = "ratio_p90";
inline constexpr const char *kOursSpread = "ours_spread";
inline constexpr const char *kPeerSpread = "peer_spread";
inline constexpr const char *kVerdict = "verdict";
// import.nvbandwidth.*: the SUM line nvbandwidth prints under its matrix
inline constexpr const char *kMatrixSumGbytesPerS = "matrix_sum_gbytes_per_s";
// ... and a latency matrix's cell (nvbandwidth prints ns)
inline constexpr const char *kLatencyS = "latency_s";

// What an imported record says of its source beyond the families' names (params): the tool and
// the file, the format read, the tool's and the driver's versions
inline constexpr const char *kTool = "tool";
inline constexpr const char *kSource = metric::kSource;
inline constexpr const char *kSourceFormat = "source_format";
inline constexpr const char *kToolVersion = "nvbandwidth_version";
inline constexpr const char *kDriverVersion = "driver_version";
// ... perftest's: whether the client ever connected, how GPU memory was registered, the figures
// perftest printed without computing them
inline constexpr const char *kConnected = "connected";
inline constexpr const char *kGpuRegistration = "gpu_registration";
inline constexpr const char *kPerftestNotComputed = "perftest_not_computed";
// ... and the unit its figures were read in where its header's did not fit its message rate
inline constexpr const char *kPerftestUnitRead = "perftest_unit_read";
// ... nccl-tests': elements per rank
inline constexpr const char *kCount = "count";
// ... nvbandwidth's: the testcase, its matrix and variant, the cell's row and column and what each
// names (a GPU, the host), and how a bidirectional figure was counted
// nvbandwidth's import: what concerns the run, and one key per testcase under the prefix
inline constexpr const char *kNvbandwidthRunKey = "import.nvbandwidth";
inline constexpr const char *kNvbandwidthKeyPrefix = "import.nvbandwidth.";
inline constexpr const char *kTestcase = "testcase";
inline constexpr const char *kMatrix = "matrix";
inline constexpr const char *kVariant = "variant";
inline constexpr const char *kCaption = "caption";
inline constexpr const char *kRow = "row";
inline constexpr const char *kColumn = "column";
inline constexpr const char *kRowKind = "row_kind";
inline constexpr const char *kColumnKind = "column_kind";
inline constexpr const char *kBidirectionalFigure = "bidirectional_figure";

// The field table: every metric a peer record may carry, its unit and what it means
// (records/metric_field.h). tests/analysis/record_contract_test.cpp holds it to the schema.
inline constexpr std::array kMetrics{
    MetricField{kOursTflops, "TFLOP/s", "railgauge's rate at the point"},
    MetricField{kOursBestTflops, "TFLOP/s", "railgauge's best_tflops at the point"},
    MetricField{kOursGbytesPerS, "GB/s", "railgauge's rate at the point"},
    MetricField{kOursH2dGbytesPerS, "GB/s", "railgauge's host-to-device rate"},
    MetricField{kOursD2hGbytesPerS, "GB/s", "railgauge's device-to-host rate"},
    MetricField{kOursVsTorch, "ratio", "railgauge's figure over torch's"},
    MetricField{kOursVsNvbandwidth, "ratio",
                "railgauge's figure over nvbandwidth's, after peer_counting_factor"},
    MetricField{kOursVsRailgauge, "ratio",
                "peer.railgauge_aa: one railgauge side's figure over the other's (A/A control)"},
    MetricField{kOursMetric, "", "the railgauge metric compared"},
    MetricField{kOursRecords, "count", "railgauge records the figure is the median of"},
    MetricField{kOperandSets, "count", "operand sets torch rotated through"},
    MetricField{kNvbandwidthReportedGbytesPerS, "GB/s", "the figure nvbandwidth printed"},
    MetricField{kPeerCountingFactor, "ratio",
                "what nvbandwidth's figure is multiplied by to count as railgauge does"},
    MetricField{kMatrixSumGbytesPerS, "GB/s",
                "import.nvbandwidth: the SUM line under nvbandwidth's matrix"},
    MetricField{kLatencyS, "s", "import.nvbandwidth: a latency matrix's cell"},
    MetricField{kSamples, "count", "torch's timed samples per round"},
    MetricField{kEnqueueAhead, "count", "calls torch enqueued before timing"},
    MetricField{kOursRoundsS, "s", "railgauge's median seconds per call in each interleaved round"},
    MetricField{kPeerRoundsS, "s", "the peer's median seconds per call in each interleaved round"},
    MetricField{kRoundRatios, "ratio",
                "the peer's seconds per call over railgauge's in each round"},
    MetricField{kRatio, "ratio", "the median of round_ratios"},
    MetricField{kRatioP10, "ratio", "the interval's low end: the 10th percentile of round_ratios"},
    MetricField{kRatioP90, "ratio", "the interval's high end: the 90th percentile of round_ratios"},
    MetricField{kOursSpread, "ratio", "railgauge's spread over the rounds: p90 / p10 - 1"},
    MetricField{kPeerSpread, "ratio", "the peer's spread over the rounds: p90 / p10 - 1"},
    MetricField{kVerdict, "", "parity, or which side is faster"},
};

} // namespace railgauge::peer::record
