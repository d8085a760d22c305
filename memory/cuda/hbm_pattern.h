#pragma once
// memory.pattern: the HBM pattern test of a burn-in (DCGM's memtest and memory diagnostics). On
// every local GPU at once (or on `-a gpu=N` alone), each GPU in its own thread:
//
//  1. Most of the GPU's free memory is allocated in chunks of 1 GiB (plan_hbm_pattern_chunks:
//     all but a stated margin; a chunk the allocator refuses is halved, down to 64 MiB), and
//     the share of the free memory covered is recorded: the shipped rules fail a GPU under 0.9.
//  2. For each round, each pattern of hbm_pattern_words.h (walking ones, walking zeros, address
//     in address, seeded random) is written over every chunk, then checked over every chunk on
//     the GPU: the check recomputes each word from its index and address, so no copy of the data
//     exists anywhere. Wrong words are counted on the GPU (an atomic counter, per pattern too),
//     with the first few kept: their address, the word expected and the word read.
//  3. The GPU's figure: its wrong words (any fails it), bytes covered, share of the free memory,
//     and the rate the patterns ran at (bytes written plus bytes read over the kernels' time).
//     Its telemetry and health (ECC, row remaps, Xid) cover the whole test.
//
// `inject_faults` flips the lowest bit of that many words between the first write and its check
// (0 in a burn-in): what the GPU test uses to prove the check finds a fault where one lies.
#include <array>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "harness/benchmark.h"
#include "memory/cuda/hbm_pattern_words.h"

namespace railgauge::memory {

// "walking_ones", "walking_zeros", "address", "random"
const char *hbm_pattern_name(HbmPattern pattern);

// Chunks of the free memory that the patterns cover, each a multiple of 2 MiB (the allocator's
// page on current GPUs), the last one the rest.
inline constexpr std::uint64_t kHbmPatternChunkBytes = std::uint64_t{1} << 30;
inline constexpr std::uint64_t kHbmPatternAlignBytes = std::uint64_t{2} << 20;
// The smallest chunk asked for after the allocator refused a larger one.
inline constexpr std::uint64_t kHbmPatternMinChunkBytes = std::uint64_t{64} << 20;
// The free memory left alone: the larger of 512 MiB and 2% of it. The CUDA context grows on the
// first launch of a kernel (its local memory, the allocator's own bookkeeping), and a driver or
// monitor may allocate beside the test; a margin keeps those from failing the test half way.
// Chosen, not sourced: it leaves 0.98 of an 80 GB GPU's free memory covered, above the 0.9 the
// rules ask (the "at least 90% of free memory").
inline constexpr std::uint64_t kHbmPatternMinMarginBytes = std::uint64_t{512} << 20;
inline constexpr double kHbmPatternMarginFraction = 0.02;

struct HbmPatternChunkPlan {
  std::uint64_t free_bytes = 0;
  std::uint64_t margin_bytes = 0;
  std::vector<std::uint64_t> chunk_bytes;
  std::uint64_t planned_bytes() const;
};

// The chunks for a GPU with `free_bytes` free: none when the margin takes it all.
HbmPatternChunkPlan plan_hbm_pattern_chunks(std::uint64_t free_bytes);

// What one GPU's pattern test found.
struct HbmPatternGpuResult {
  int gpu = 0;
  std::string name, uuid, pci;
  std::uint64_t free_memory_bytes = 0, margin_bytes = 0, covered_bytes = 0;
  int chunks = 0;
  std::int64_t rounds = 0;
  std::int64_t injected_faults = 0;
  std::uint64_t wrong_words = 0;
  std::array<std::uint64_t, kHbmPatternCount> wrong_words_by_pattern{};
  std::vector<HbmPatternBadWord> bad_words; // the first few, as the GPU found them
  double pattern_time_s = 0;                // the write and check kernels, CUDA events
  double elapsed_s = 0;                     // the whole test on this GPU, allocation included
  nlohmann::json telemetry = nullptr;
  std::optional<std::string> error; // the GPU broke: no verdict on its memory

  // covered_bytes / free_memory_bytes (0 when nothing was free)
  double covered_fraction() const;
  // Bytes written plus bytes read over pattern_time_s, GB/s (0 before any pattern ran)
  double bandwidth_gbytes_per_s() const;
  nlohmann::json to_json() const;
};

struct HbmPatternOptions {
  std::int64_t rounds = 0;
  std::int64_t inject_faults = 0;
  std::vector<int> gpus;
};

// The point's outcome: `failed` when a GPU's check found a wrong word (naming the GPU, the count
// and the first address), else `error` when one broke; metrics per_gpu, wrong_words over every
// GPU and the lowest GPU's free_memory_covered_fraction.
Outcome hbm_pattern_outcome(const std::vector<HbmPatternGpuResult> &gpus);

// Runs the test on every GPU of `options` at once (hbm_pattern_run.cpp; the stub without CUDA).
std::vector<HbmPatternGpuResult> run_hbm_pattern(const HbmPatternOptions &options);

class HbmPatternBenchmark final : public KeyedBenchmark {
public:
  HbmPatternBenchmark();
  std::vector<Axis> axes() const override;
  std::optional<std::string> supported(const RunContext &ctx, const Point &point) const override;
  Outcome run(RunContext &ctx, const Point &point) override;
};

std::unique_ptr<HbmPatternBenchmark> make_hbm_pattern();

} // namespace railgauge::memory
