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

std::vector<record::PhaseFields> phase_fields(const std::vector<BlockStep> &steps,
                                              const std::vector<double> &phase_s,
                                              std::size_t element_bytes) {
  std::vector<record::PhaseFields> phases;
  for (std::size_t j = 0; j < steps.size(); ++j) {
    const auto &st = steps[j];
    record::PhaseFields p;
    p.name = st.name;
    p.time_s = phase_s[j];
    if (st.kind == StepKind::gemm) {
      p.kind = record::kGemmPhase;
      p.op = st.gemm.op();
      p.m = double(st.gemm.shape.m);
      p.n = double(st.gemm.shape.n);
      p.k = double(st.gemm.shape.k);
      p.batch = double(st.gemm.shape.batch);
    } else {
      p.kind = record::kCollectivePhase;
      p.op = to_string(st.op);
      p.size_bytes = double(st.size_elements * std::int64_t(element_bytes));
    }
    phases.push_back(std::move(p));
  }
  return phases;
}

void add_block_metrics(nlohmann::json &metrics, const std::vector<BlockStep> &steps,
                       const std::vector<double> &by_rank, int ranks, int iterations,
                       double block_median_s, std::size_t element_bytes) {
  record::BlockFigures::of(
      phase_fields(steps, phase_medians(by_rank, ranks, iterations, steps.size()), element_bytes),
      kind_median(by_rank, ranks, iterations, steps, StepKind::gemm),
      kind_median(by_rank, ranks, iterations, steps, StepKind::collective), block_median_s)
      .write(metrics);
}

} // namespace railgauge::block
