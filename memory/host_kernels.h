#pragma once
// The four STREAM-style kernels of the host DRAM benchmarks, over one thread's slice
// [begin, end) of double-precision arrays, and the exact checks of their results.
//
// Why seeded values instead of STREAM's constants: every element gets a value that depends on
// its index, so a copy into the wrong place, a stale page or a flipped bit shows up as a wrong
// element. The seeds are small multiples of 1/4, so every triad result and every read sum is
// exact in double precision whatever order the vectorized reduction adds in, and results can
// be compared with ==.
//
// Why a separate translation unit: it is compiled with -fopenmp-simd (the read reduction) and
// without GCC's loop-to-memcpy/memset rewriting, so that copy and write run our loop (plain
// stores, like likwid-bench's copy/store kernels and STREAM) rather than glibc's memcpy, which
// switches to non-temporal stores for large sizes and would measure a different thing.
#include <cstddef>

#include "memory/stream_kernel.h"

namespace railgauge::memory {

// The host benchmarks run read, write, copy and triad (library_copy is the HBM memcpy).
using Kernel = StreamKernel;

// The scalar of write and triad.
inline constexpr double kScalar = 3.0;

// Views of the arrays a kernel works on; arrays the kernel does not use may be null.
struct StreamArrays {
  double *a = nullptr;
  double *b = nullptr;
  double *c = nullptr;
  std::size_t elements = 0; // per array
};

// Seed values of element i of each array.
double seed_a(std::size_t i);
double seed_b(std::size_t i);
double seed_c(std::size_t i);

// Writes the seeds into [begin, end) of every array `kernel` uses. Called by the thread that
// will run the kernel on that slice, so that the slice's pages are first touched there.
void seed_slice(Kernel kernel, const StreamArrays &arrays, std::size_t begin, std::size_t end);

// Runs `kernel` once over [begin, end). Returns the sum for Kernel::read and 0 otherwise.
double run_slice(Kernel kernel, const StreamArrays &arrays, std::size_t begin, std::size_t end);

// The number of elements in [begin, end) that do not hold what `kernel` leaves there: the
// output array for write/copy/triad, the (unchanged) input for read.
std::size_t count_wrong(Kernel kernel, const StreamArrays &arrays, std::size_t begin,
                        std::size_t end);

// What run_slice(Kernel::read, ...) returns over [begin, end) of seeded arrays.
double expected_read_sum(std::size_t begin, std::size_t end);

} // namespace railgauge::memory
