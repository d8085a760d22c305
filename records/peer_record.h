#pragma once
// Records of other tools' figures: the peer comparisons that scripts/*_vs_*.py write (keys
// peer.torch_matmul, peer.torch_copy, peer.nvbandwidth: railgauge's figure beside the peer's
// at one point) and what an imported output carries beyond the families' names. Header only:
// the record schema and the contract test read the names from here.
#include <array>

namespace railgauge::peer::record {

inline constexpr const char *kOursTflops = "ours_tflops";
inline constexpr const char *kOursBestTflops = "ours_best_tflops";
inline constexpr const char *kOursGbytesPerS = "ours_gbytes_per_s";
inline constexpr const char *kOursH2dGbytesPerS = "ours_h2d_gbytes_per_s";
inline constexpr const char *kOursD2hGbytesPerS = "ours_d2h_gbytes_per_s";
inline constexpr const char *kOursVsTorch = "ours_vs_torch"; // railgauge's figure / torch's
inline constexpr const char *kOursVsNvbandwidth = "ours_vs_nvbandwidth";
inline constexpr const char *kOursMetric = "ours_metric";   // the railgauge metric compared
inline constexpr const char *kOursRecords = "ours_records"; // records the figure is the median of
inline constexpr const char *kOperandSets = "operand_sets";
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

inline constexpr std::array kMetrics{kOursTflops,
                                     kOursBestTflops,
                                     kOursGbytesPerS,
                                     kOursH2dGbytesPerS,
                                     kOursD2hGbytesPerS,
                                     kOursVsTorch,
                                     kOursVsNvbandwidth,
                                     kOursMetric,
                                     kOursRecords,
                                     kOperandSets,
                                     kNvbandwidthReportedGbytesPerS,
                                     kPeerCountingFactor,
                                     kMatrixSumGbytesPerS,
                                     kLatencyS,
                                     kSamples,
                                     kEnqueueAhead,
                                     kOursRoundsS,
                                     kPeerRoundsS,
                                     kRoundRatios,
                                     kRatio,
                                     kRatioP10,
                                     kRatioP90,
                                     kOursSpread,
                                     kPeerSpread,
                                     kVerdict};

} // namespace railgauge::peer::record
