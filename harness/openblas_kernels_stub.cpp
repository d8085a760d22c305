// openblas_kernels.h for builds without OpenBLAS: nothing to choose, nothing to describe.
#include "harness/openblas_kernels.h"

namespace railgauge {

void restart_with_native_openblas_kernels(char **) {}

std::string openblas_description() { return ""; }

} // namespace railgauge
