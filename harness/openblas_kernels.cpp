#include "harness/openblas_kernels.h"

namespace railgauge {

VectorFeatures this_cpu_vector_features() {
  VectorFeatures f;
#if defined(__x86_64__) || defined(__i386__)
  __builtin_cpu_init();
  f.avx = __builtin_cpu_supports("avx");
  f.avx2_fma = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
  f.avx512 = __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512cd") &&
             __builtin_cpu_supports("avx512bw") && __builtin_cpu_supports("avx512dq") &&
             __builtin_cpu_supports("avx512vl");
#endif
  return f;
}

std::optional<std::string> openblas_coretype_instead(const std::string &chosen_core,
                                                     const VectorFeatures &cpu) {
  // OpenBLAS's dynamic.c: a CPU it does not recognise gets gotoblas_PRESCOTT.
  if (chosen_core != "Prescott")
    return std::nullopt;
  if (cpu.avx512)
    return "SkylakeX";
  if (cpu.avx2_fma)
    return "Haswell";
  if (cpu.avx)
    return "Sandybridge";
  return std::nullopt;
}

} // namespace railgauge
