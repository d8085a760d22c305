#include "block/block_phases.h"

#include <algorithm>

#include "harness/stats.h"
#include "records/block_record.h"

namespace railgauge::block {

std::vector<double> phase_medians(const std::vector<double> &by_rank, int ranks, int iterations,
                                  std::size_t steps) {
  std::vector<double> out(steps);
  for (std::size_t j = 0; j < steps; ++j) {
    std::vector<double> per_iteration;
    for (int it = 0; it < iterations; ++it) {
      double worst = 0;
      for (int r = 0; r < ranks; ++r)
        worst = std::max(worst, by_rank[(std::size_t(r) * iterations + it) * steps + j]);
      per_iteration.push_back(worst);
    }
    out[j] = median(per_iteration);
  }
  return out;
}

double kind_median(const std::vector<double> &by_rank, int ranks, int iterations,
                   const std::vector<BlockStep> &steps, StepKind kind) {
  std::vector<double> per_iteration;
  for (int it = 0; it < iterations; ++it) {
    double worst = 0;
    for (int r = 0; r < ranks; ++r) {
      double sum = 0;
      for (std::size_t j = 0; j < steps.size(); ++j)
        if (steps[j].kind == kind)
          sum += by_rank[(std::size_t(r) * iterations + it) * steps.size() + j];
      worst = std::max(worst, sum);
    }
    per_iteration.push_back(worst);
  }
  return median(per_iteration);
}

nlohmann::json phases_json(const std::vector<BlockStep> &steps, const std::vector<double> &phase_s,
                           std::size_t element_bytes) {
  nlohmann::json phases = nlohmann::json::array();
  for (std::size_t j = 0; j < steps.size(); ++j) {
    const auto &st = steps[j];
    nlohmann::json p = {{record::kPhaseName, st.name}, {record::kPhaseTimeS, phase_s[j]}};
    if (st.kind == StepKind::gemm) {
      p[record::kPhaseKind] = record::kGemmPhase;
      p[record::kPhaseOp] = st.gemm.op();
      p[record::kPhaseM] = st.gemm.shape.m;
      p[record::kPhaseN] = st.gemm.shape.n;
      p[record::kPhaseK] = st.gemm.shape.k;
      p[record::kPhaseBatch] = st.gemm.shape.batch;
    } else {
      p[record::kPhaseKind] = record::kCollectivePhase;
      p[record::kPhaseOp] = to_string(st.op);
      p[record::kPhaseSizeBytes] = st.size_elements * std::int64_t(element_bytes);
    }
    phases.push_back(std::move(p));
  }
  return phases;
}

void add_block_metrics(nlohmann::json &metrics, const std::vector<BlockStep> &steps,
                       const std::vector<double> &by_rank, int ranks, int iterations,
                       double block_median_s, std::size_t element_bytes) {
  metrics[record::kGemmTimeS] = kind_median(by_rank, ranks, iterations, steps, StepKind::gemm);
  metrics[record::kCollectiveTimeS] =
      kind_median(by_rank, ranks, iterations, steps, StepKind::collective);
  metrics[record::kBlockFlops] = block_flops(steps);
  metrics[record::kBlockTflops] = block_flops(steps) / block_median_s / 1e12;
  metrics[record::kPhases] =
      phases_json(steps, phase_medians(by_rank, ranks, iterations, steps.size()), element_bytes);
}

} // namespace railgauge::block
