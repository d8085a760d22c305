#include "analysis/calibrate/gpu_spec.h"

#include <vector>

#include "harness/inventory/inventory_fields.h"

namespace railgauge::calibrate {
namespace {

// [GK-H100] glennklockwood.com/garden/processors/h100, "VFMA" column (from NVIDIA's H100
// whitepaper): FP32 66.9, FP16 and BF16 133.8 TFLOP/s on the SXM5's 132 SMs at 1.98 GHz. The
// H200 has the same SMs and clocks (results/peaks/gpu_peaks.yaml, [NV-H200]). No figure is
// published for FP8 outside the tensor cores: vector.float8 has no spec.
// NVLink: 900 GB/s per GPU, both directions together (NVIDIA's H100 and H200 datasheets);
// Calculon's bandwidth is one direction, 450 (as in its own h100_80g_nvl8.json).
constexpr const char *kVector = "spec: [GK-H100] VFMA column, NVIDIA H100 whitepaper";
// Dense tensor-core peaks (the datasheet's sparse figures halved), as in
// results/peaks/gpu_peaks.yaml ([NV-H100]; the H200 has the H100 SXM's compute, [NV-H200]).
constexpr const char *kMatrix = "spec: results/peaks/gpu_peaks.yaml, dense ([MLE-A], [NV-H100])";
constexpr const char *kNvlink =
    "spec: NVLink 900 GB/s both directions (NVIDIA H100/H200 datasheet), 450 per direction";

struct Entry {
  const char *match;
  std::vector<const char *> unless;
  GpuSpec spec;
};

const std::vector<Entry> &entries() {
  static const std::vector<Entry> e = {
      {"H200",
       {"NVL", "GH200"},
       {"H200 SXM 141GB",
        {{"matrix.float16.tflops", {989, kMatrix}},
         {"matrix.bfloat16.tflops", {989, kMatrix}},
         {"matrix.float8.tflops", {1979, kMatrix}},
         // TF32 (float32 in Calculon): dense 494 TFLOP/s; without it a TF32 burn's rate was its
         // own peak, at efficiency 1.0 (results/peaks/gpu_peaks.yaml tf32)
         {"matrix.float32.tflops", {494, kMatrix}},
         {"mem1.GiB", {141, "spec: HBM3e 141 GB (NVIDIA H200 datasheet)"}},
         {"vector.float32.tflops", {66.9, kVector}},
         {"vector.float16.tflops", {133.8, kVector}},
         {"vector.bfloat16.tflops", {133.8, kVector}},
         {"mem1.GBps", {4800, "spec: HBM3e 4.8 TB/s (NVIDIA H200 datasheet, SXM)"}},
         {"networks.0.bandwidth", {450, kNvlink}}}}},
      {"H100",
       {"NVL", "PCIe", "GH200"},
       {"H100 SXM 80GB",
        {{"matrix.float16.tflops", {989, kMatrix}},
         {"matrix.bfloat16.tflops", {989, kMatrix}},
         {"matrix.float8.tflops", {1979, kMatrix}},
         // TF32 (float32 in Calculon): dense 494 TFLOP/s; without it a TF32 burn's rate was its
         // own peak, at efficiency 1.0 (results/peaks/gpu_peaks.yaml tf32)
         {"matrix.float32.tflops", {494, kMatrix}},
         {"mem1.GiB", {80, "spec: HBM3 80 GB (NVIDIA H100 datasheet, SXM)"}},
         {"vector.float32.tflops", {66.9, kVector}},
         {"vector.float16.tflops", {133.8, kVector}},
         {"vector.bfloat16.tflops", {133.8, kVector}},
         {"mem1.GBps", {3350, "spec: HBM3 3.35 TB/s (NVIDIA H100 datasheet, SXM)"}},
         {"networks.0.bandwidth", {450, kNvlink}}}}},
  };
  return e;
}

} // namespace

const GpuSpec *gpu_spec_for(const std::string &device_name) {
  for (const auto &e : entries()) {
    if (device_name.find(e.match) == std::string::npos)
      continue;
    bool ruled_out = false;
    for (const char *u : e.unless)
      ruled_out |= device_name.find(u) != std::string::npos;
    if (!ruled_out)
      return &e.spec;
  }
  return nullptr;
}

const GpuSpec *gpu_spec_of(const analysis::RunSet &runs) {
  const GpuSpec *found = nullptr;
  for (const auto &r : runs.runs) {
    if (!r.manifest.is_object() || !r.manifest.contains(inventory_field::kInventory))
      continue;
    const auto &nvml = r.manifest[inventory_field::kInventory].value(inventory_field::kNvml,
                                                                     nlohmann::json::object());
    if (!nvml.is_object() || !nvml.contains(inventory_field::kGpus) ||
        !nvml[inventory_field::kGpus].is_array())
      continue;
    for (const auto &g : nvml[inventory_field::kGpus]) {
      const auto name = g.value(inventory_field::kName, nlohmann::json());
      const GpuSpec *s = name.is_string() ? gpu_spec_for(name.get<std::string>()) : nullptr;
      if (s == nullptr || (found != nullptr && found != s))
        return nullptr;
      found = s;
    }
  }
  return found;
}

} // namespace railgauge::calibrate
