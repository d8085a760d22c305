#include "records/gemm_burn_figures.h"

#include "harness/record_fields.h"
#include "records/gemm_record.h"

namespace railgauge::gemm::record {

namespace f = record_fields;

void GemmBurnGpuFigures::write(nlohmann::json &gpu_object) const {
  gpu_object[kBurnIndex] = index;
  gpu_object[kBurnIterations] = iterations;
  gpu_object[kBurnBadIterations] = bad_iterations;
  gpu_object[kBurnFirstBadIteration] = first_bad_iteration;
  gpu_object[kBurnMismatchedElements] = mismatched_elements;
  gpu_object[kBurnNanElements] = nan_elements;
  gpu_object[kBurnInfElements] = inf_elements;
  gpu_object[kBurnReferenceCheckedElements] = reference_checked;
  gpu_object[kBurnReferenceWrongElements] = reference_wrong;
  gpu_object[kTflops] = tflops;
  gpu_object[kTflopsMin] = tflops_min;
  gpu_object[kBurnAlgo] = algo;
}

std::optional<GemmBurnGpuFigures> GemmBurnGpuFigures::read(const nlohmann::json &gpu_object) {
  const auto index = f::integer(gpu_object, kBurnIndex);
  if (!index)
    return std::nullopt;
  GemmBurnGpuFigures g;
  g.index = *index;
  g.iterations = f::integer(gpu_object, kBurnIterations).value_or(0);
  g.bad_iterations = f::integer(gpu_object, kBurnBadIterations).value_or(0);
  g.first_bad_iteration = f::integer(gpu_object, kBurnFirstBadIteration).value_or(-1);
  g.mismatched_elements = f::count(gpu_object, kBurnMismatchedElements);
  g.nan_elements = f::count(gpu_object, kBurnNanElements);
  g.inf_elements = f::count(gpu_object, kBurnInfElements);
  g.reference_checked = f::integer(gpu_object, kBurnReferenceCheckedElements).value_or(0);
  g.reference_wrong = f::integer(gpu_object, kBurnReferenceWrongElements).value_or(0);
  g.tflops = f::number(gpu_object, kTflops).value_or(0);
  g.tflops_min = f::number(gpu_object, kTflopsMin).value_or(0);
  if (const auto *algo = f::field(gpu_object, kBurnAlgo))
    g.algo = *algo;
  return g;
}

} // namespace railgauge::gemm::record
