#pragma once
// HBM bandwidth of one GPU: the shared part of memory.hbm_read, hbm_write, hbm_copy, hbm_triad
// and hbm_memcpy_d2d, which differ only in their kernel, key and description.
//
// One point = arrays of `size_bytes` each on GPU `gpu`, seeded, then one kernel (or one
// cudaMemcpyAsync) over the whole arrays per call of the measured operation, timed by the
// CUDA-event timer (harness/cuda/event_timer.h: the batch is enqueued behind a blocking kernel,
// so launch cost is excluded). After the measurement the output is checked on the GPU, whole.
//
// The default sweep goes from 4 KiB, inside L2 (50 MiB on H100), to most of the free HBM in
// powers of two, so both the L2 plateau and the HBM plateau show.
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "harness/benchmark.h"
#include "memory/cuda/hbm_types.h"

namespace railgauge::memory {

// Bytes are counted by arrays_used() and bytes_moved_per_call() in memory/stream_kernel.h.

// The default size sweep, bytes per array: powers of two from 4 KiB to the largest whose arrays
// together fit in 90% of `free_bytes` (the smallest free memory over the GPUs swept). Without a
// GPU (nullopt), a fixed 4 KiB..4 GiB so waived records still carry the points.
std::vector<std::int64_t> hbm_default_sizes_bytes(HbmKernel kernel,
                                                  std::optional<std::uint64_t> free_bytes);

class HbmStreamBenchmark final : public KeyedBenchmark {
public:
  HbmStreamBenchmark(HbmKernel kernel, std::string_view key, std::string_view description)
      : KeyedBenchmark(std::string(key), std::string(description)), kernel_(kernel) {}
  std::vector<Axis> axes() const override;
  std::vector<AxisValue> defaults_here(const Axis &axis, const RunContext &ctx) const override;
  std::optional<std::string> supported(const RunContext &ctx, const Point &point) const override;
  Outcome run(RunContext &ctx, const Point &point) override;

  HbmKernel kernel() const { return kernel_; }

  // Test hook: called after the measurement and before the data check, with the device arrays,
  // so a test can corrupt them and see the point fail.
  void set_before_verify(std::function<void(const HbmArrays &)> hook) {
    before_verify_ = std::move(hook);
  }

private:
  HbmKernel kernel_;
  std::function<void(const HbmArrays &)> before_verify_;
};

std::unique_ptr<HbmStreamBenchmark> make_hbm_read();
std::unique_ptr<HbmStreamBenchmark> make_hbm_write();
std::unique_ptr<HbmStreamBenchmark> make_hbm_copy();
std::unique_ptr<HbmStreamBenchmark> make_hbm_triad();
std::unique_ptr<HbmStreamBenchmark> make_hbm_memcpy_d2d();

} // namespace railgauge::memory
