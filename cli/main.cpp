#include "cli/cli.h"
#include "harness/openblas_kernels.h"

int main(int argc, char **argv) {
  railgauge::restart_with_native_openblas_kernels(argv);
  return railgauge::run_cli(argc, argv);
}
