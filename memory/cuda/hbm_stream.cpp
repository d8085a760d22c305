// The parts of the HBM benchmarks that need no CUDA toolkit: axes, defaults, byte accounting
// and waivers (compiled in every build; run() is in hbm_stream_run.cpp or its stub).
#include "memory/cuda/hbm_stream.h"

#include <algorithm>
#include <bit>

#include <fmt/format.h>

#include "harness/cuda/device.h"
#include "harness/cuda/every_gpu_check.h"
#include "harness/error.h"
#include "harness/run_context.h"
#include "records/memory_record.h"

namespace railgauge::memory {
namespace {

constexpr std::uint64_t kKiB = 1024;
constexpr std::uint64_t kGiB = kKiB * kKiB * kKiB;
constexpr std::uint64_t kFirstSizeBytes = 4 * kKiB;
constexpr std::uint64_t kNoGpuLastSizeBytes = 4 * kGiB;
// The arrays may take at most this share of the GPU's free memory: the rest is for the
// context, the timer and the data check.
constexpr double kMaxFreeMemoryShare = 0.9;

std::vector<std::int64_t> powers_of_two(std::uint64_t first, std::uint64_t last) {
  std::vector<std::int64_t> sizes;
  for (std::uint64_t s = first; s <= last; s *= 2)
    sizes.push_back(static_cast<std::int64_t>(s));
  return sizes;
}

} // namespace

std::vector<std::int64_t> hbm_default_sizes_bytes(HbmKernel kernel,
                                                  std::optional<std::uint64_t> free_bytes) {
  if (!free_bytes)
    return powers_of_two(kFirstSizeBytes, kNoGpuLastSizeBytes);
  const auto fits =
      static_cast<std::uint64_t>(kMaxFreeMemoryShare * static_cast<double>(*free_bytes)) /
      static_cast<std::uint64_t>(arrays_used(kernel));
  return powers_of_two(kFirstSizeBytes, std::max(kFirstSizeBytes, std::bit_floor(fits)));
}

std::vector<Axis> HbmStreamBenchmark::axes() const {
  std::vector<AxisValue> sizes;
  for (std::int64_t s : hbm_default_sizes_bytes(kernel_, std::nullopt))
    sizes.emplace_back(s);
  return {
      {record::kSizeBytes,
       AxisType::bytes,
       "bytes PER ARRAY, a multiple of 16 (read and write use 1 array, copy and memcpy_d2d 2, "
       "triad 3); default: powers of two from 4 KiB (in L2) to most of the free HBM",
       sizes,
       {}},
      {record::kGpu,
       AxisType::integer,
       "CUDA device index, as CUDA_VISIBLE_DEVICES leaves them; default: every visible GPU",
       {std::int64_t{0}},
       {}},
  };
}

std::vector<AxisValue> HbmStreamBenchmark::defaults_here(const Axis &axis,
                                                         const RunContext &) const {
  const int count = gpu::cuda_device_count();
  std::vector<AxisValue> values;
  if (axis.name == "gpu") {
    for (int d = 0; d < count; ++d)
      values.emplace_back(std::int64_t{d});
  } else if (axis.name == "size_bytes") {
    std::optional<std::uint64_t> smallest_free;
    try {
      for (int d = 0; d < count; ++d) {
        const std::uint64_t free_bytes = gpu::cuda_device_info(d).free_memory_bytes;
        smallest_free = std::min(smallest_free.value_or(free_bytes), free_bytes);
      }
    } catch (const BackendError &) {
      // A GPU that cannot be queried is waived point by point, with the error, by supported().
      smallest_free.reset();
    }
    for (std::int64_t s : hbm_default_sizes_bytes(kernel_, smallest_free))
      values.emplace_back(s);
  }
  return values.empty() ? axis.defaults : values;
}

std::optional<std::string> HbmStreamBenchmark::supported(const RunContext &,
                                                         const Point &point) const {
  if (auto why = gpu::cuda_unavailable_reason())
    return why;
  const std::int64_t device = point.integer(record::kGpu);
  const int count = gpu::cuda_device_count();
  if (auto why = gpu::gpu_not_visible(device, count))
    return why;
  const std::int64_t size_bytes = point.integer(record::kSizeBytes);
  if (auto why = gpu::vector_size_problem(size_bytes))
    return why;
  gpu::CudaDeviceInfo info;
  try {
    info = gpu::cuda_device_info(static_cast<int>(device));
  } catch (const BackendError &e) {
    return fmt::format("CUDA device {} cannot be queried: {}", device, e.what());
  }
  const double total_bytes = static_cast<double>(size_bytes) * arrays_used(kernel_);
  if (total_bytes > kMaxFreeMemoryShare * static_cast<double>(info.free_memory_bytes))
    return fmt::format("the arrays need {} bytes, more than {:.0f}% of the {} bytes free on GPU {} "
                       "({})",
                       total_bytes, 100 * kMaxFreeMemoryShare, info.free_memory_bytes, device,
                       info.name);
  return std::nullopt;
}

// Read: loads only; each block stores its partial sum, so the loads cannot be optimised away
// and the sum is checked against its closed form. Compare with BabelStream's dot.
std::unique_ptr<HbmStreamBenchmark> make_hbm_read() {
  return std::make_unique<HbmStreamBenchmark>(
      HbmKernel::read, record::kHbmRead,
      "HBM read bandwidth of one GPU: sum += a[i] in 16-byte vectors, one partial sum per block "
      "(GB/s, 1 array counted)");
}

// Write: stores only (a GPU store does not read the line first, so HBM moves what we count).
std::unique_ptr<HbmStreamBenchmark> make_hbm_write() {
  return std::make_unique<HbmStreamBenchmark>(
      HbmKernel::write, record::kHbmWrite,
      "HBM write bandwidth of one GPU: a[i] = s in 16-byte vectors (GB/s, 1 array counted)");
}

// Copy by SM kernel: BabelStream's copy. memory.hbm_memcpy_d2d copies through cudaMemcpyAsync.
std::unique_ptr<HbmStreamBenchmark> make_hbm_copy() {
  return std::make_unique<HbmStreamBenchmark>(
      HbmKernel::copy, record::kHbmCopy,
      "HBM copy bandwidth of one GPU by an SM kernel: c[i] = a[i] in 16-byte vectors (GB/s, 2 "
      "arrays counted)");
}

// Triad: STREAM's and BabelStream's triad, two loads and one store per element.
std::unique_ptr<HbmStreamBenchmark> make_hbm_triad() {
  return std::make_unique<HbmStreamBenchmark>(
      HbmKernel::triad, record::kHbmTriad,
      "HBM triad bandwidth of one GPU: a[i] = b[i] + s * c[i] in 16-byte vectors (GB/s, 3 "
      "arrays counted)");
}

// D2D memcpy: what cudaMemcpyAsync(DeviceToDevice) achieves within one GPU, the path libraries
// take for their copies. Counted as read + write (2x), like memory.hbm_copy; nvbandwidth counts
// the bytes copied once.
std::unique_ptr<HbmStreamBenchmark> make_hbm_memcpy_d2d() {
  return std::make_unique<HbmStreamBenchmark>(
      HbmKernel::library_copy, record::kHbmMemcpyD2d,
      "HBM device-to-device cudaMemcpyAsync bandwidth of one GPU (GB/s, read + write counted: 2x "
      "the bytes copied, nvbandwidth counts 1x)");
}

} // namespace railgauge::memory
