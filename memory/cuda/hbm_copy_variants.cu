// hbm_copy_variants: times ways of writing an HBM copy kernel against cudaMemcpyAsync on GPU 0,
// to choose memory.hbm_copy's launch (docs/memory.md, "Measured"). Not part of railgauge: a
// probe built beside it, run by hand on a GPU node:
//   build/bin/hbm_copy_variants [MiB ...]     (default 256 1024 4096)
// Each line: the variant, GB/s at the median of 21 event-timed calls (read + written bytes),
// after 3 warm-ups, and at the fastest call.
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <string>
#include <vector>

#include <cuda_runtime.h>

#include "harness/cuda/grid_stride.cuh"

namespace {

constexpr int kThreads = 256;
constexpr int kWarmups = 3;
constexpr int kSamples = 21;

using railgauge::gpu::first_index;
using railgauge::gpu::grid_stride;

// A grid-stride loop with `Unroll` loads in flight per thread before the stores.
template <int Unroll>
__global__ void strided(const double2 *__restrict__ a, double2 *__restrict__ c, std::size_t n) {
  railgauge::gpu::unrolled_copy<Unroll>(a, c, n);
}

// The same with streaming (evict-first) loads and stores.
__global__ void strided_streaming(const double2 *__restrict__ a, double2 *__restrict__ c,
                                  std::size_t n) {
  for (std::size_t i = first_index(); i < n; i += grid_stride())
    __stcs(c + i, __ldcs(a + i));
}

// One vector per thread, a block per 256 vectors (BabelStream's launch).
__global__ void one_per_thread(const double2 *__restrict__ a, double2 *__restrict__ c,
                               std::size_t n) {
  const std::size_t i = first_index();
  if (i < n)
    c[i] = a[i];
}

// Each block copies one contiguous chunk.
__global__ void chunked(const double2 *__restrict__ a, double2 *__restrict__ c, std::size_t n) {
  const std::size_t per = (n + gridDim.x - 1) / gridDim.x;
  const std::size_t start = blockIdx.x * per, end = start + per < n ? start + per : n;
  for (std::size_t i = start + threadIdx.x; i < end; i += blockDim.x)
    c[i] = a[i];
}

bool ok(cudaError_t e, const char *what) {
  if (e != cudaSuccess)
    std::fprintf(stderr, "hbm_copy_variants: %s: %s\n", what, cudaGetErrorString(e));
  return e == cudaSuccess;
}

struct Timer {
  cudaStream_t stream{};
  cudaEvent_t start{}, stop{};
  Timer() {
    cudaStreamCreate(&stream);
    cudaEventCreate(&start);
    cudaEventCreate(&stop);
  }
  ~Timer() {
    cudaEventDestroy(start);
    cudaEventDestroy(stop);
    cudaStreamDestroy(stream);
  }
  Timer(const Timer &) = delete;
  Timer &operator=(const Timer &) = delete;

  // Prints the variant's GB/s for `bytes_moved` per call; false on a CUDA error.
  bool report(std::size_t mib, const char *name, double bytes_moved,
              const std::function<void()> &call) const {
    for (int w = 0; w < kWarmups; ++w)
      call();
    std::vector<float> ms;
    for (int r = 0; r < kSamples; ++r) {
      cudaEventRecord(start, stream);
      call();
      cudaEventRecord(stop, stream);
      if (!ok(cudaEventSynchronize(stop), name))
        return false;
      float t = 0;
      cudaEventElapsedTime(&t, start, stop);
      ms.push_back(t);
    }
    if (!ok(cudaGetLastError(), name))
      return false;
    std::sort(ms.begin(), ms.end());
    const double median_s = ms[kSamples / 2] * 1e-3, min_s = ms.front() * 1e-3;
    std::printf("%6zu MiB  %-26s %7.0f GB/s  (fastest %.0f)\n", mib, name,
                bytes_moved / median_s / 1e9, bytes_moved / min_s / 1e9);
    return true;
  }
};

} // namespace

int main(int argc, char **argv) {
  std::vector<std::size_t> sizes_mib;
  for (int i = 1; i < argc; ++i) {
    char *end = nullptr;
    const std::size_t mib = std::strtoull(argv[i], &end, 10);
    if (end == argv[i] || *end != '\0' || mib == 0) {
      std::fprintf(stderr, "hbm_copy_variants: '%s' is not a size in MiB (give whole MiB > 0)\n",
                   argv[i]);
      return 2;
    }
    sizes_mib.push_back(mib);
  }
  if (sizes_mib.empty())
    sizes_mib = {256, 1024, 4096};
  int sms = 0;
  if (!ok(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0), "SM count"))
    return 1;
  const Timer timer;
  const cudaStream_t st = timer.stream;
  for (const std::size_t mib : sizes_mib) {
    const std::size_t bytes = mib << 20, n = bytes / sizeof(double2);
    double2 *a = nullptr, *c = nullptr;
    if (!ok(cudaMalloc(&a, bytes), "cudaMalloc") || !ok(cudaMalloc(&c, bytes), "cudaMalloc") ||
        !ok(cudaMemset(a, 1, bytes), "cudaMemset") || !ok(cudaMemset(c, 0, bytes), "cudaMemset")) {
      cudaFree(a); // cudaFree(nullptr) is a no-op
      cudaFree(c);
      return 1;
    }
    const double moved = 2.0 * double(bytes);
    const int once = sms * (2048 / kThreads); // every thread slot of every SM, once
    const auto all = static_cast<unsigned>((n + kThreads - 1) / kThreads);
    const bool good = timer.report(mib, "cudaMemcpyAsync", moved, [&] {
      cudaMemcpyAsync(c, a, bytes, cudaMemcpyDeviceToDevice, st);
    }) && timer.report(mib, "one per thread", moved, [&] {
      one_per_thread<<<all, kThreads, 0, st>>>(a, c, n);
    }) && timer.report(mib, "strided, 1 in flight", moved, [&] {
      strided<1><<<once, kThreads, 0, st>>>(a, c, n);
    }) && timer.report(mib, "strided, 4 in flight", moved, [&] {
      strided<4><<<once, kThreads, 0, st>>>(a, c, n);
    }) && timer.report(mib, "strided, 8 in flight", moved, [&] {
      strided<8><<<once, kThreads, 0, st>>>(a, c, n);
    }) && timer.report(mib, "strided, 2 waves, 4 in flight", moved, [&] {
      strided<4><<<2 * once, kThreads, 0, st>>>(a, c, n);
    }) && timer.report(mib, "strided, streaming", moved, [&] {
      strided_streaming<<<once, kThreads, 0, st>>>(a, c, n);
    }) && timer.report(mib, "chunked, 1 wave", moved, [&] {
      chunked<<<once, kThreads, 0, st>>>(a, c, n);
    }) && timer.report(mib, "chunked, 8 waves", moved, [&] {
      chunked<<<8 * once, kThreads, 0, st>>>(a, c, n);
    });
    cudaFree(a);
    cudaFree(c);
    if (!good)
      return 1;
  }
  return 0;
}
