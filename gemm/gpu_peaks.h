#pragma once
// The dense tensor-core peaks of GPU SKUs (results/peaks/gpu_peaks.yaml), for the `efficiency`
// of the GPU GEMM benchmarks: the SKU is chosen by the CUDA device name, the first entry whose
// `match` is a substring of it and none of whose `unless` are (the file lists specific names
// before general ones: "H100 PCIe" before "H100"; "H200" is not "H200 NVL"). Figures are TFLOP/s =
// 1e12 FLOP/s, dense (half the datasheets' sparse ones).
//
//   schema: railgauge.gpu_peaks/1
//   gpus:
//     - match: "H100"
//       name: H100 SXM 80GB
//       source: "[NV-H100] SXM column"
//       unless: ["NVL"]                              # optional
//       tflops: {bf16: 989, fp8_e4m3: 1979, ...}     # dtype names as dtype.h spells them
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "gemm/dtype.h"

namespace railgauge::gemm {

struct GpuPeak {
  std::string match;               // a substring of the CUDA device name
  std::vector<std::string> unless; // substrings that rule the entry out ("NVL" for "H200")
  std::string name;                // the SKU, for records
  std::string source;              // the citation
  std::vector<std::pair<Dtype, double>> tflops;
  std::string where; // file:line of the entry

  std::optional<double> tflops_of(Dtype dtype) const;
};

struct GpuPeakTable {
  std::string path;
  std::vector<GpuPeak> gpus;
};

// Parses the YAML text of a peak table. Throws InputError naming `path` and the line of the
// problem: bad YAML, a wrong schema, an entry without match/name/source, an unknown dtype, a
// peak that is not a positive number.
GpuPeakTable parse_gpu_peaks(const std::string &yaml_text, const std::string &path);
// Reads and parses the file. Throws InputError when it cannot be read.
GpuPeakTable load_gpu_peaks(const std::string &path);

// The first entry whose `match` is a substring of `device_name`, or nullptr.
const GpuPeak *find_gpu_peak(const GpuPeakTable &table, std::string_view device_name);

// Where the table is read from: $RAILGAUGE_GPU_PEAKS when set, else
// <prefix>/share/railgauge/peaks/gpu_peaks.yaml beside an installed binary when it exists, else
// the source tree's results/peaks/gpu_peaks.yaml.
std::string default_gpu_peaks_path();

} // namespace railgauge::gemm
