#pragma once
// The GPU models each input of a comparison ran on. A burn-in of an H100 beside one of an H200
// matched GPU by GPU (by bus id) and read the H200's HBM 1.416 x "better" and its GEMM "within
// noise", and nothing named the models: a ratio of two models is no change of one.
#include <string>
#include <vector>

#include "analysis/run_set.h"

namespace railgauge::compare {

// "the inputs ran on different GPUs (A: NVIDIA H100 80GB HBM3; B: NVIDIA H200): ..." where two
// inputs name different GPU models (their inventories' NVML names, else their records'), "" where
// they agree or an input names none (an import of another tool's output).
std::string different_gpu_models(const std::vector<analysis::RunSet> &inputs,
                                 const std::vector<std::string> &labels);

} // namespace railgauge::compare
