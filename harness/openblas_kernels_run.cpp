// The parts of openblas_kernels.h that ask OpenBLAS itself.
#include <cblas.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>

#include <fmt/format.h>

#include "harness/openblas_kernels.h"

namespace railgauge {
namespace {

// Set for the restarted process: the core OpenBLAS had chosen before OPENBLAS_CORETYPE.
constexpr const char *kReplacedCoreVariable = "RAILGAUGE_OPENBLAS_REPLACED_CORE";

} // namespace

void restart_with_native_openblas_kernels(char **argv) {
  if (std::getenv("OPENBLAS_CORETYPE") != nullptr)
    return; // chosen by the user, or by the restart itself
  const std::string chosen = openblas_get_corename();
  const auto instead = openblas_coretype_instead(chosen, this_cpu_vector_features());
  if (!instead)
    return;
  setenv("OPENBLAS_CORETYPE", instead->c_str(), 1);
  setenv(kReplacedCoreVariable, chosen.c_str(), 1);
  execv("/proc/self/exe", argv);
  fmt::print(stderr,
             "railgauge: warning: OpenBLAS runs its generic {} kernels on this CPU, and restarting "
             "with OPENBLAS_CORETYPE={} failed ({}): CPU GEMM figures will be low. Set "
             "OPENBLAS_CORETYPE={} yourself.\n",
             chosen, *instead, std::strerror(errno), *instead);
  unsetenv("OPENBLAS_CORETYPE");
  unsetenv(kReplacedCoreVariable);
}

std::string openblas_description() {
  std::string text =
      fmt::format("OpenBLAS {} ({})", openblas_get_config(), openblas_get_corename());
  if (const char *replaced = std::getenv(kReplacedCoreVariable))
    text += fmt::format("; OPENBLAS_CORETYPE={} set by railgauge: OpenBLAS had chosen its generic "
                        "{} kernels for this CPU",
                        std::getenv("OPENBLAS_CORETYPE") ? std::getenv("OPENBLAS_CORETYPE") : "?",
                        replaced);
  return text;
}

} // namespace railgauge
