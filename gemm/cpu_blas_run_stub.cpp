// run_cpu_blas() for builds without OpenBLAS: supported() always has this reason, so every
// point is a waived record.
#include "gemm/cpu_blas.h"

namespace railgauge::gemm {

std::optional<std::string> cpu_blas_unavailable_reason() {
  return "built without OpenBLAS (RAILGAUGE_ENABLE_OPENBLAS=OFF or openblas.pc not found by "
         "pkg-config)";
}

Outcome run_cpu_blas(RunContext &, const GemmPlan &, Dtype, double, Rotate, const BeforeVerify &,
                     const std::string &) {
  return Outcome::waived(*cpu_blas_unavailable_reason());
}

} // namespace railgauge::gemm
