#pragma once
// The published figures of the GPUs a calibration knows by name (H100 SXM, H200 SXM): vector
// (non-tensor) TFLOP/s, HBM bandwidth and NVLink bandwidth per direction, each with its source.
// A value the runs did not measure and the user did not give is taken from here before anything
// else; only the GPU the runs found is used, never another GPU's figures.
#include <map>
#include <string>
#include <utility>

#include "analysis/run_set.h"

namespace railgauge::calibrate {

struct GpuSpec {
  std::string name; // "H200 SXM 141GB"
  // Calculon keys (vector.<dt>.tflops, mem1.GBps, networks.0.bandwidth) -> {value, source}.
  std::map<std::string, std::pair<double, std::string>> values;
};

// The spec of a CUDA device name ("NVIDIA H200"), nullptr for a GPU without one (H100 PCIe or
// NVL, H200 NVL, GH200, anything else).
const GpuSpec *gpu_spec_for(const std::string &device_name);

// The spec of the GPUs in the runs' inventories: nullptr when none is listed or when they are not
// all of one spec.
const GpuSpec *gpu_spec_of(const analysis::RunSet &runs);

} // namespace railgauge::calibrate
