#pragma once
// What both block backends (transformer_tp.cpp: MPI and OpenBLAS; transformer_tp_gpu.cpp: NCCL
// and cuBLASLt) write the same way: the per-phase medians over iterations of the max over ranks,
// the phases and model fields of the record (block_record.h).
#include <cstddef>
#include <vector>

#include <nlohmann/json.hpp>

#include "block/tp_block_plan.h"
#include "gemm/transformer_shapes.h"
#include "records/block_point_fields.h"

namespace railgauge::block {

// For every step, per iteration, the max over ranks of its time; then the median over
// iterations. `by_rank` holds, rank after rank, iterations × steps times.
std::vector<double> phase_medians(const std::vector<double> &by_rank, int ranks, int iterations,
                                  std::size_t steps);

// The median over iterations of the max over ranks of a rank's summed `kind` phases.
double kind_median(const std::vector<double> &by_rank, int ranks, int iterations,
                   const std::vector<BlockStep> &steps, StepKind kind);

// metrics.phases: each step with its shape or size and its time; `element_bytes` of a
// collective's elements.
std::vector<record::PhaseFields> phase_fields(const std::vector<BlockStep> &steps,
                                              const std::vector<double> &phase_s,
                                              std::size_t element_bytes);

// gemm_time_s, collective_time_s, flops_per_block, block_tflops and phases into `metrics`, from
// every rank's step times (`by_rank`, as phase_medians reads them) and the block's median time.
void add_block_metrics(nlohmann::json &metrics, const std::vector<BlockStep> &steps,
                       const std::vector<double> &by_rank, int ranks, int iterations,
                       double block_median_s, std::size_t element_bytes);

} // namespace railgauge::block
