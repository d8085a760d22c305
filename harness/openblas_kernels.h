#pragma once
// Which kernels OpenBLAS runs. Built with DYNAMIC_ARCH (as Debian builds it), OpenBLAS picks a
// kernel set for the CPU when it loads; a CPU newer than the library gets its generic x86-64 set,
// "Prescott" (SSE3). OpenBLAS 0.3.21 does so on Intel family 6 model 207 (Emerald Rapids), where
// the cpu-small block ran 3.8x slower than with its AVX-512 kernels: 0.32 s against 0.085 s
// (docs/gemm.md, CPU backend, "Kernels"). OPENBLAS_CORETYPE names the set instead, but is read only
// when the library loads, before main: so railgauge restarts itself with it set.
#include <optional>
#include <string>

namespace railgauge {

// What the OS lets this CPU run (GCC's __builtin_cpu_supports checks XCR0 too: AVX-512 that a
// hypervisor hides is absent here).
struct VectorFeatures {
  bool avx512 = false; // F, CD, BW, DQ and VL: what OpenBLAS's SkylakeX kernels use
  bool avx2_fma = false;
  bool avx = false;
};
VectorFeatures this_cpu_vector_features();

// The kernel set to ask for instead of `chosen_core` (openblas_get_corename()): nullopt unless
// OpenBLAS fell back to its generic set on a CPU with AVX or more.
std::optional<std::string> openblas_coretype_instead(const std::string &chosen_core,
                                                     const VectorFeatures &cpu);

// First thing in main. When OPENBLAS_CORETYPE is unset and OpenBLAS fell back to its generic
// kernels, sets it and executes /proc/self/exe again with the same arguments: the same process
// (pid, MPI and Slurm environment), now with the CPU's kernels. Returns when there is nothing to
// do, or when exec fails (a warning on stderr: the run goes on with the generic kernels, and the
// records say which ran).
void restart_with_native_openblas_kernels(char **argv);

// What a record says of the library: "OpenBLAS <config> (<core>)", and, when railgauge chose the
// core, which one OpenBLAS had chosen. Empty when built without OpenBLAS.
std::string openblas_description();

} // namespace railgauge
