#pragma once
// The offload family's record contract (see records/gemm_record.h): keys, and the parameter and
// metric names that the family writes and analysis and the shipped rules read. The copy
// bandwidth is the measurement core's (harness/metric_names.h).
#include <array>
#include <cstdint>
#include <optional>
#include <string>

#include "harness/metric_names.h"
#include "harness/record_fields.h"
#include "records/metric_field.h"
#include "records/with_gemm_figures.h"

namespace railgauge::offload::record {

inline constexpr const char *kFamily = "offload";
inline constexpr const char *kCategory = "pcie";

// Keys
inline constexpr const char *kH2d = "offload.h2d";
inline constexpr const char *kD2h = "offload.d2h";
inline constexpr const char *kBidir = "offload.bidir";
inline constexpr const char *kZeroCopyRead = "offload.zero_copy_read";
inline constexpr const char *kZeroCopyWrite = "offload.zero_copy_write";
inline constexpr const char *kAllGpusH2d = "offload.all_gpus_h2d";
inline constexpr const char *kAllGpusD2h = "offload.all_gpus_d2h";
inline constexpr const char *kWithGemm = "offload.with_gemm";

// Parameters
inline constexpr const char *kSizeBytes = metric::kSizeBytes;
inline constexpr const char *kGpu = metric::kGpu;
inline constexpr const char *kHostMemory = "host_memory"; // pinned | pageable
inline constexpr const char *kPlacement = "placement";    // near | far NUMA node of the GPU
inline constexpr const char *kDirection = metric::kDirection;
inline constexpr const char *kGemmMnk = metric::kGemmMnk;
// Derived: the GPU and where the copy ran (the host buffer's NUMA node, the GPU's, the CPU that
// drove it, and how that placement was found), what moved the bytes (copy_engine | sm) and a
// zero-copy kernel's launch, the streams of a bidirectional copy, all_gpus' GPU count, and
// with_gemm's calls per timed window and its GEMM's types
inline constexpr const char *kGpuName = metric::kGpuName;
inline constexpr const char *kHostNumaNode = "host_numa_node";
inline constexpr const char *kGpuNumaNode = "gpu_numa_node";
inline constexpr const char *kCpuPu = "cpu_pu";
inline constexpr const char *kPlacementHow = "placement_how";
inline constexpr const char *kEngine = "engine";
inline constexpr const char *kGridBlocks = metric::kGridBlocks;
inline constexpr const char *kBlockThreads = metric::kBlockThreads;
inline constexpr const char *kStreams = "streams";
inline constexpr const char *kGpus = "gpus";
inline constexpr const char *kGemmsPerCall = "gemms_per_call";
inline constexpr const char *kCopiesPerCall = "copies_per_call";
inline constexpr const char *kGemmDtype = metric::kGemmDtype;

// Metrics
inline constexpr const char *kBandwidthGbytesPerS = metric::kBandwidthGbytesPerS;
inline constexpr const char *kBytesPerCall = metric::kBytesPerCall;
inline constexpr const char *kVerified = metric::kVerified;
// The link NVML saw while the copy ran: below its maximum generation or width (bool)
inline constexpr const char *kPcieLinkDowntrained = "pcie_link_downtrained";
// What the link's generation x width carries after encoding and packet overhead
inline constexpr const char *kExpectedGbytesPerS = "expected_gbytes_per_s";
inline constexpr const char *kEfficiency = metric::kEfficiency;   // bandwidth / expected
inline constexpr const char *kH2dGbytesPerS = "h2d_gbytes_per_s"; // bidir: each direction
inline constexpr const char *kD2hGbytesPerS = "d2h_gbytes_per_s";
inline constexpr const char *kCopySlowdown = "copy_slowdown"; // with_gemm: together / alone
inline constexpr const char *kGemmSlowdown = metric::kGemmSlowdown;

// Written beside the figures: what the data check compared, how the point was set up,
// where a multi-part point's slowest part is
inline constexpr const char *kSumGbytesPerS = "sum_gbytes_per_s";
inline constexpr const char *kH2dEfficiency = "h2d_efficiency";
inline constexpr const char *kD2hEfficiency = "d2h_efficiency";
inline constexpr const char *kWrongWords = "wrong_words";
inline constexpr const char *kSumOfGpusGbytesPerS = "sum_of_gpus_gbytes_per_s";
inline constexpr const char *kPerGpu = metric::kPerGpu;
inline constexpr const char *kSlowestGpu = metric::kSlowestGpu;
inline constexpr const char *kSlowestGpuShare = "slowest_gpu_share";
// An all_gpus per_gpu object's share of the sum (beside kGpu, the core's metric::kPerGpu* fields,
// the placement params above, kBandwidthGbytesPerS and the placement and link metrics)
inline constexpr const char *kPerGpuShare = "share";
inline constexpr const char *kBytesPerCopy = "bytes_per_copy";
inline constexpr const char *kCopyAloneGbytesPerS = "copy_alone_gbytes_per_s";
inline constexpr const char *kCopyConcurrentGbytesPerS = "copy_concurrent_gbytes_per_s";
inline constexpr const char *kGemmAloneTflops = metric::kGemmAloneTflops;
inline constexpr const char *kGemmConcurrentTflops = metric::kGemmConcurrentTflops;
inline constexpr const char *kGemmWrongSamples = metric::kGemmWrongSamples;

// Where the host buffer sat (offload/placement.h) and the PCIe link's state (offload/pcie_link.h)
inline constexpr const char *kHostNumaNodesMeasured = "host_numa_nodes_measured";
inline constexpr const char *kPlacementHonoured = "placement_honoured";
// Why the host buffer's node is not known (then the two above are null)
inline constexpr const char *kHostNumaNodeUnknownReason = "host_numa_node_unknown_reason";
inline constexpr const char *kPcieLinkSource = "pcie_link_source";
inline constexpr const char *kPcieGen = "pcie_gen";
inline constexpr const char *kPcieWidth = "pcie_width";
inline constexpr const char *kPcieGenMax = "pcie_gen_max";
inline constexpr const char *kPcieWidthMax = "pcie_width_max";
inline constexpr const char *kPcieEncoding = "pcie_encoding";
inline constexpr const char *kPcieLinkGbytesPerS = "pcie_link_gbytes_per_s";
inline constexpr const char *kPcieMaxPayloadBytesAssumed = "pcie_max_payload_bytes_assumed";
inline constexpr const char *kPcieLinkDowntrainedReason = "pcie_link_downtrained_reason";
// Why the link's state is not known (then pcie_link_source is null and no other link field is set)
inline constexpr const char *kPcieLinkUnknownReason = "pcie_link_unknown_reason";

// The field table: every metric a offload record may carry, its unit and what it means
// (records/metric_field.h). tests/analysis/record_contract_test.cpp holds it to the schema.
inline constexpr std::array kMetrics{
    MetricField{kBandwidthGbytesPerS, "GB/s", "bytes copied per call over the median time"},
    MetricField{kBytesPerCall, "bytes", "bytes one call copies"},
    MetricField{kVerified, "", "the point's data check passed"},
    MetricField{kPcieLinkDowntrained, "", "the link ran below its maximum generation or width"},
    MetricField{kExpectedGbytesPerS, "GB/s",
                "what the link's generation x width carries after overheads"},
    MetricField{kEfficiency, "ratio", "bandwidth over expected_gbytes_per_s"},
    MetricField{kH2dGbytesPerS, "GB/s", "bidir: the host-to-device direction"},
    MetricField{kD2hGbytesPerS, "GB/s", "bidir: the device-to-host direction"},
    MetricField{kCopySlowdown, "ratio", "with_gemm: the copy's time beside the GEMM over alone"},
    MetricField{kGemmSlowdown, "ratio", "with_gemm: the GEMM's time beside the copy over alone"},
    MetricField{kSumGbytesPerS, "GB/s", "bidir: both directions together"},
    MetricField{kH2dEfficiency, "ratio",
                "bidir: the host-to-device rate over the expected link rate"},
    MetricField{kD2hEfficiency, "ratio",
                "bidir: the device-to-host rate over the expected link rate"},
    MetricField{kWrongWords, "count", "words the data check found wrong"},
    MetricField{kSumOfGpusGbytesPerS, "GB/s", "all_gpus: every GPU's copy at once, summed"},
    MetricField{kPerGpu, "", "all_gpus: one object per GPU"},
    MetricField{kSlowestGpu, "", "all_gpus: the slowest GPU"},
    MetricField{kSlowestGpuShare, "ratio", "all_gpus: the slowest GPU's rate over the fastest's"},
    MetricField{kBytesPerCopy, "bytes", "with_gemm: bytes of one copy"},
    MetricField{kCopyAloneGbytesPerS, "GB/s", "with_gemm: the copy alone"},
    MetricField{kCopyConcurrentGbytesPerS, "GB/s", "with_gemm: the copy beside the GEMM"},
    MetricField{kGemmAloneTflops, "TFLOP/s", "with_gemm: the GEMM alone"},
    MetricField{kGemmConcurrentTflops, "TFLOP/s", "with_gemm: the GEMM beside the copy"},
    MetricField{kGemmWrongSamples, "count", "with_gemm: GEMM output samples the check found wrong"},
    MetricField{kHostNumaNodesMeasured, "", "the NUMA nodes the host buffer's pages were found on"},
    MetricField{kPlacementHonoured, "",
                "the host buffer sat on the NUMA node the placement asked for"},
    MetricField{kHostNumaNodeUnknownReason, "", "why the host buffer's NUMA node is not known"},
    MetricField{kPcieLinkSource, "", "where the link's state was read"},
    MetricField{kPcieGen, "", "the GPU's PCIe generation while the point ran"},
    MetricField{kPcieWidth, "lanes", "the GPU's PCIe lane count while the point ran"},
    MetricField{kPcieGenMax, "", "the highest generation the link supports"},
    MetricField{kPcieWidthMax, "lanes", "the widest the link supports"},
    MetricField{kPcieEncoding, "", "the line encoding of that generation"},
    MetricField{kPcieLinkGbytesPerS, "GB/s", "the link's raw rate per direction after encoding"},
    MetricField{kPcieMaxPayloadBytesAssumed, "bytes", "the TLP payload the expected rate assumes"},
    MetricField{kPcieLinkDowntrainedReason, "", "why the link runs below its maximum"},
    MetricField{kPcieLinkUnknownReason, "", "why the link's state is not known"},
};

// An offload record, read: the typed view through which analysis reads the family.
struct OffloadPointView {
  std::string key;
  std::string path;                   // the key within the family: "h2d", "all_gpus_d2h", ...
  std::string host_memory = "pinned"; // what the family writes when the axis is not given
  std::string placement = "near";
  std::optional<double> size_bytes;
  std::optional<std::int64_t> gpu;
  std::optional<double> bytes_per_call;
  std::optional<double> time_s; // the median call
  std::optional<double> bandwidth_gbytes_per_s;
  // with_gemm: the GEMM's time beside the copy over alone, read with the figures it is written
  // with (records/with_gemm_figures.h)
  std::optional<double> gemm_slowdown;
};

// The view of an offload record, else nullopt.
inline std::optional<OffloadPointView> offload_point_view(const Record &r) {
  namespace f = record_fields;
  if (!f::in_family(r, kFamily))
    return std::nullopt;
  OffloadPointView v;
  v.key = r.key;
  v.path = f::name_in_family(r.key);
  v.host_memory = f::text(r.params, kHostMemory).value_or(v.host_memory);
  v.placement = f::text(r.params, kPlacement).value_or(v.placement);
  v.size_bytes = f::number(r.params, kSizeBytes);
  v.gpu = f::integer(r.params, kGpu);
  v.bytes_per_call = f::number(r.metrics, kBytesPerCall);
  v.time_s = f::median_time_s(r.metrics);
  v.bandwidth_gbytes_per_s = f::number(r.metrics, kBandwidthGbytesPerS);
  // A with_gemm record written before bytes_per_copy was (2026-11-23) holds the slowdown without
  // every other figure the type reads: its slowdown is still read, field by field.
  if (const auto with_gemm = WithGemmFigures::read(r.metrics))
    v.gemm_slowdown = with_gemm->gemm_slowdown;
  else
    v.gemm_slowdown = f::number(r.metrics, kGemmSlowdown);
  return v;
}

} // namespace railgauge::offload::record
