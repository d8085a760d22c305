// memory.pattern's chunk plan, axes, waivers and verdict: compiled in every build
// (run_hbm_pattern() is in hbm_pattern_run.cpp or its stub).
#include "memory/cuda/hbm_pattern.h"

#include <algorithm>

#include <fmt/format.h>

#include "harness/byte_rates.h"
#include "harness/cuda/device.h"
#include "harness/cuda/every_gpu_check.h"
#include "harness/device_fields.h"
#include "harness/error.h"
#include "harness/every_gpu.h"
#include "harness/every_gpu_status.h"
#include "records/gpu_part.h"
#include "records/memory_burn_figures.h"
#include "records/memory_record.h"

namespace railgauge::memory {
namespace {

// Rounds of the four patterns by default: each round writes every word anew (hbm_pattern_word).
constexpr std::int64_t kDefaultRounds = 4;

std::string gpu_label(const HbmPatternGpuResult &g) {
  return every_gpu_label(g.gpu, g.name, g.uuid, g.pci);
}

std::string hex(std::uint64_t word) { return fmt::format("0x{:016x}", word); }

HbmPatternOptions hbm_pattern_options(const Point &point, int gpus_visible) {
  HbmPatternOptions o;
  o.rounds = point.integer(record::kRounds);
  if (o.rounds < 1 || o.rounds > 1'000'000)
    throw InputError(fmt::format("rounds = {} is not a number of rounds", o.rounds),
                     record::kRounds, "give 1 or more (each round writes and checks 4 patterns)");
  o.inject_faults = point.integer(record::kInjectFaults);
  if (o.inject_faults < 0 || o.inject_faults > 1'000'000)
    throw InputError(fmt::format("inject_faults = {} is not a count of words", o.inject_faults),
                     record::kInjectFaults, "give 0 (a real test) or the words to flip (a test's)");
  o.gpus = every_gpu_devices(point, gpus_visible);
  return o;
}

} // namespace

const char *hbm_pattern_name(HbmPattern pattern) {
  switch (pattern) {
  case HbmPattern::walking_ones:
    return "walking_ones";
  case HbmPattern::walking_zeros:
    return "walking_zeros";
  case HbmPattern::address:
    return "address";
  case HbmPattern::random:
    break;
  }
  return "random";
}

std::uint64_t HbmPatternChunkPlan::planned_bytes() const {
  std::uint64_t total = 0;
  for (auto bytes : chunk_bytes)
    total += bytes;
  return total;
}

HbmPatternChunkPlan plan_hbm_pattern_chunks(std::uint64_t free_bytes) {
  HbmPatternChunkPlan plan;
  plan.free_bytes = free_bytes;
  plan.margin_bytes = std::max(
      kHbmPatternMinMarginBytes,
      static_cast<std::uint64_t>(kHbmPatternMarginFraction * static_cast<double>(free_bytes)));
  if (free_bytes <= plan.margin_bytes)
    return plan;
  std::uint64_t left =
      (free_bytes - plan.margin_bytes) / kHbmPatternAlignBytes * kHbmPatternAlignBytes;
  while (left > 0) {
    const std::uint64_t chunk = std::min(left, kHbmPatternChunkBytes);
    plan.chunk_bytes.push_back(chunk);
    left -= chunk;
  }
  return plan;
}

double HbmPatternGpuResult::covered_fraction() const {
  return free_memory_bytes > 0
             ? static_cast<double>(covered_bytes) / static_cast<double>(free_memory_bytes)
             : 0.0;
}

double HbmPatternGpuResult::bandwidth_gbytes_per_s() const {
  // Each pattern of each round writes every covered byte once and reads it once.
  const double bytes =
      2.0 * kHbmPatternCount * static_cast<double>(rounds) * static_cast<double>(covered_bytes);
  return pattern_time_s > 0 ? gbytes_per_s_of(bytes, pattern_time_s) : 0.0;
}

nlohmann::json HbmPatternGpuResult::to_json() const {
  record::HbmPatternGpuFigures figures;
  figures.wrong_words = wrong_words;
  for (int p = 0; p < kHbmPatternCount; ++p)
    figures.wrong_words_by_pattern[hbm_pattern_name(static_cast<HbmPattern>(p))] =
        wrong_words_by_pattern[p];
  for (const auto &w : bad_words)
    figures.bad_words.push_back({hex(w.address), hex(w.expected), hex(w.read),
                                 hbm_pattern_name(static_cast<HbmPattern>(w.pattern)), w.round});
  figures.free_memory_covered_fraction = covered_fraction();
  figures.covered_bytes = covered_bytes;
  figures.free_memory_bytes = free_memory_bytes;
  figures.margin_bytes = margin_bytes;
  figures.chunks = chunks;
  figures.rounds = rounds;
  figures.injected_faults = injected_faults;
  figures.bandwidth_gbytes_per_s = bandwidth_gbytes_per_s();
  figures.pattern_time_s = pattern_time_s;
  nlohmann::json j = nlohmann::json::object();
  figures.write(j);
  records::gpu_part_of(*this, gpu,
                       error ? Status::error : (wrong_words > 0 ? Status::failed : Status::ok))
      .write(j);
  return j;
}

Outcome hbm_pattern_outcome(const std::vector<HbmPatternGpuResult> &gpus) {
  Outcome out;
  nlohmann::json list = nlohmann::json::array();
  std::vector<std::string> wrong, broke;
  std::uint64_t wrong_total = 0;
  double lowest_fraction = gpus.empty() ? 0.0 : 1.0;
  for (const auto &g : gpus) {
    list.push_back(g.to_json());
    wrong_total += g.wrong_words;
    if (g.wrong_words > 0) {
      wrong.push_back(fmt::format("{}: {} of {} words wrong", gpu_label(g), g.wrong_words,
                                  g.covered_bytes / sizeof(std::uint64_t)));
      if (!g.bad_words.empty())
        wrong.back() +=
            fmt::format(", the first at {} ({} held {}, not {})", hex(g.bad_words.front().address),
                        hbm_pattern_name(static_cast<HbmPattern>(g.bad_words.front().pattern)),
                        hex(g.bad_words.front().read), hex(g.bad_words.front().expected));
    }
    if (g.error)
      broke.push_back(fmt::format("{}: {}", gpu_label(g), *g.error));
    lowest_fraction = std::min(lowest_fraction, g.covered_fraction());
  }
  out.metrics[record::kPerGpu] = list;
  out.metrics[record::kWrongWords] = wrong_total;
  out.metrics[record::kFreeMemoryCoveredFraction] = lowest_fraction;
  out.metrics[record::kVerified] = wrong.empty() && broke.empty() && !gpus.empty();
  if (gpus.size() == 1)
    out.device = {{device::kGpu, gpus.front().uuid}, {device::kPci, gpus.front().pci}};
  set_every_gpu_status(out, gpus.size(), wrong, broke, "HBM pattern check found wrong words on",
                       "the HBM pattern test");
  return out;
}

HbmPatternBenchmark::HbmPatternBenchmark()
    : KeyedBenchmark(
          record::kHbmPattern,
          "HBM pattern test: walking ones and zeros, address in address and seeded random "
          "words over most of the free memory of every local GPU at once, checked on the GPU, "
          "wrong words counted per GPU") {}

std::vector<Axis> HbmPatternBenchmark::axes() const {
  return {
      {record::kRounds,
       AxisType::integer,
       "rounds of the four patterns (each written over the covered memory, then checked)",
       {kDefaultRounds},
       {}},
      every_gpu_device_axis(),
      {record::kInjectFaults,
       AxisType::integer,
       "words flipped on purpose between the first write and its check, to prove the check "
       "finds them (0: a real test)",
       {std::int64_t{0}},
       {}},
  };
}

std::optional<std::string> HbmPatternBenchmark::supported(const RunContext &,
                                                          const Point &point) const {
  // Only the devices' presence: the arrays are sized to each GPU's free memory when it runs.
  return gpu::every_gpu_point_problem(
      [&](int count) { return hbm_pattern_options(point, count); },
      [](const HbmPatternOptions &o, int count) -> std::optional<std::string> {
        for (int d : o.gpus)
          if (d >= count)
            return fmt::format("gpu={} does not exist here: {} CUDA device(s) visible", d, count);
        return std::nullopt;
      });
}

Outcome HbmPatternBenchmark::run(RunContext &ctx, const Point &point) {
  if (auto why = supported(ctx, point))
    return Outcome::waived(*why);
  const HbmPatternOptions o = hbm_pattern_options(point, gpu::cuda_device_count());
  Outcome out = hbm_pattern_outcome(run_hbm_pattern(o));
  std::string names;
  for (int p = 0; p < kHbmPatternCount; ++p)
    names += fmt::format("{}{}", p > 0 ? "," : "", hbm_pattern_name(static_cast<HbmPattern>(p)));
  out.derived_params = {{record::kGpusBurned, o.gpus.size()}, {record::kPatterns, names}};
  return out;
}

std::unique_ptr<HbmPatternBenchmark> make_hbm_pattern() {
  return std::make_unique<HbmPatternBenchmark>();
}

} // namespace railgauge::memory
