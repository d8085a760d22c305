#include "memory/host_kernels.h"

// Vector clones without -march=native: GCC and Clang build one body per target and pick the
// best at load time (ifunc). Elsewhere the plain body is the only one.
#if defined(__x86_64__) && defined(__has_attribute)
#if __has_attribute(target_clones)
#define RAILGAUGE_VECTOR_CLONES __attribute__((target_clones("avx512f", "avx2", "default")))
#endif
#endif
#ifndef RAILGAUGE_VECTOR_CLONES
#define RAILGAUGE_VECTOR_CLONES
#endif

namespace railgauge::memory {
namespace {

// The kernels proper: one function each, so that each gets its own clones and the compiler
// sees restrict-qualified, non-aliasing arrays.
// 64 independent partial sums (eight AVX-512 registers: two loads per cycle times an add latency
// of four cycles, as on Intel cores since Skylake): one accumulator would
// serialise the adds on their latency and cap in-cache reads far below the load ports.
RAILGAUGE_VECTOR_CLONES
double sum_kernel(const double *__restrict a, std::size_t n) {
  constexpr std::size_t kLanes = 64;
  double partial[kLanes] = {};
  std::size_t i = 0;
  for (; i + kLanes <= n; i += kLanes) {
#pragma omp simd
    for (std::size_t j = 0; j < kLanes; ++j)
      partial[j] += a[i + j];
  }
  double sum = 0;
  for (; i < n; ++i)
    sum += a[i];
#pragma omp simd reduction(+ : sum)
  for (std::size_t j = 0; j < kLanes; ++j)
    sum += partial[j];
  return sum;
}

RAILGAUGE_VECTOR_CLONES
void write_kernel(double *__restrict a, double s, std::size_t n) {
#pragma omp simd
  for (std::size_t i = 0; i < n; ++i)
    a[i] = s;
}

RAILGAUGE_VECTOR_CLONES
void copy_kernel(double *__restrict c, const double *__restrict a, std::size_t n) {
#pragma omp simd
  for (std::size_t i = 0; i < n; ++i)
    c[i] = a[i];
}

RAILGAUGE_VECTOR_CLONES
void triad_kernel(double *__restrict a, const double *__restrict b, const double *__restrict c,
                  double s, std::size_t n) {
#pragma omp simd
  for (std::size_t i = 0; i < n; ++i)
    a[i] = b[i] + s * c[i];
}

} // namespace

double seed_a(std::size_t i) { return static_cast<double>(i % 1024) * 0.25; }
double seed_b(std::size_t i) { return static_cast<double>((i + 3) % 512) * 0.5; }
double seed_c(std::size_t i) { return static_cast<double>((i + 5) % 128) * 0.25 + 1.0; }

void seed_slice(Kernel kernel, const StreamArrays &arrays, std::size_t begin, std::size_t end) {
  const bool uses_b = kernel == Kernel::triad;
  const bool uses_c = kernel == Kernel::copy || kernel == Kernel::triad;
  for (std::size_t i = begin; i < end; ++i) {
    arrays.a[i] = seed_a(i);
    if (uses_b)
      arrays.b[i] = seed_b(i);
    if (uses_c)
      arrays.c[i] = seed_c(i);
  }
}

double run_slice(Kernel kernel, const StreamArrays &arrays, std::size_t begin, std::size_t end) {
  const std::size_t n = end - begin;
  switch (kernel) {
  case Kernel::read:
    return sum_kernel(arrays.a + begin, n);
  case Kernel::write:
    write_kernel(arrays.a + begin, kScalar, n);
    return 0;
  case Kernel::copy:
  case Kernel::library_copy: // no library copy on the host (glibc memcpy is not what we measure)
    copy_kernel(arrays.c + begin, arrays.a + begin, n);
    return 0;
  case Kernel::triad:
    triad_kernel(arrays.a + begin, arrays.b + begin, arrays.c + begin, kScalar, n);
    return 0;
  }
  return 0;
}

std::size_t count_wrong(Kernel kernel, const StreamArrays &arrays, std::size_t begin,
                        std::size_t end) {
  std::size_t wrong = 0;
  for (std::size_t i = begin; i < end; ++i) {
    switch (kernel) {
    case Kernel::read:
      wrong += arrays.a[i] != seed_a(i);
      break;
    case Kernel::write:
      wrong += arrays.a[i] != kScalar;
      break;
    case Kernel::copy:
    case Kernel::library_copy:
      wrong += arrays.c[i] != seed_a(i);
      break;
    case Kernel::triad:
      wrong += arrays.a[i] != seed_b(i) + kScalar * seed_c(i);
      break;
    }
  }
  return wrong;
}

double expected_read_sum(std::size_t begin, std::size_t end) {
  // Closed form over whole periods of seed_a (0, 0.25, ..., 255.75), then the remainder: exact,
  // and O(1024) instead of a pass over the array.
  constexpr std::size_t kPeriod = 1024;
  auto prefix = [](std::size_t n) { // sum of seed_a(i) for i < n
    const std::size_t periods = n / kPeriod, rest = n % kPeriod;
    const double period_sum = 0.25 * static_cast<double>(kPeriod * (kPeriod - 1) / 2);
    const double rest_sum = 0.25 * static_cast<double>(rest * (rest - 1) / 2);
    return static_cast<double>(periods) * period_sum + (rest ? rest_sum : 0.0);
  };
  return prefix(end) - prefix(begin);
}

} // namespace railgauge::memory
