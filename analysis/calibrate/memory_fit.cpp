#include "analysis/calibrate/memory_fit.h"

#include <algorithm>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "analysis/calibrate/si_prefixes.h"
#include "analysis/calibrate/table_fit.h"
#include "harness/stats.h"

namespace railgauge::calibrate {
namespace {

// Arrays of at most this many times the cache in front of the memory may be served from it.
constexpr double kCacheResidentFactor = 2;

bool fits_in_cache(const MemorySample &x) {
  return x.cache_bytes > 0 && x.working_set_bytes > 0 &&
         x.working_set_bytes <= kCacheResidentFactor * x.cache_bytes;
}

// Known to exceed the cache: both sizes given, the arrays past twice the cache.
bool beyond_cache(const MemorySample &x) {
  return x.cache_bytes > 0 && x.working_set_bytes > kCacheResidentFactor * x.cache_bytes;
}

// The points of `tier` that stand for Calculon's memory term; the kinds used are added to
// `kinds`.
std::vector<MemorySample> preferred_kinds(const std::vector<MemorySample> &all,
                                          const std::string &tier, std::set<std::string> &kinds) {
  // Calculon's memory term is an op that reads and writes: copy and triad (and the D2D memcpy)
  // stand for it; read-only or write-only kernels only when nothing else was measured.
  // A processor's memory term is what all its cores get: points with fewer threads than the
  // most measured (a single-thread sweep beside a whole-node one) would mix two curves.
  int most_threads = 0;
  for (const auto &s : all)
    if (s.tier == tier)
      most_threads = std::max(most_threads, s.threads);
  std::vector<MemorySample> rw, any;
  for (const auto &s : all) {
    if (s.tier != tier || s.threads != most_threads)
      continue;
    any.push_back(s);
    if (s.kind == "copy" || s.kind == "triad" || s.kind == "memcpy_d2d")
      rw.push_back(s);
  }
  const auto &use = rw.empty() ? any : rw;
  for (const auto &s : use)
    kinds.insert(s.kind);
  return use;
}

// The efficiency table of memory points against the user's peak, else the best measured (beyond
// the cache where points beyond it exist); `what` says which points they are.
TableFit fit_memory(const std::string &name, const std::vector<MemorySample> &s,
                    std::optional<double> user_peak, const CalibrateOptions &o,
                    const std::string &what) {
  // The table is the memory's, not its cache's: on an H200 the copy of two 16 MiB arrays (in the
  // 60 MB L2) ran at 4.9 TB/s, the HBM plateau at 4.3, and a curve through both fits neither
  // (held-out error 22% mean with them). So where points beyond twice the cache exist, the peak
  // is their best and the points that may be served from the cache are left out.
  double best = 0, best_beyond = 0;
  for (const auto &x : s) {
    best = std::max(best, x.bytes / x.time_s / kGiga);
    if (beyond_cache(x))
      best_beyond = std::max(best_beyond, x.bytes / x.time_s / kGiga);
  }
  const Sourced peak =
      user_peak     ? Sourced{*user_peak, kUserSource, false}
      : best_beyond ? measured(best_beyond, "the highest bandwidth measured on arrays beyond twice "
                                            "the cache (no peak given)")
                    : measured(best, "the highest bandwidth measured (no peak given)");
  std::vector<StepPoint> pts;
  int from_cache = 0;
  for (const auto &x : s) {
    if (best_beyond > 0 && fits_in_cache(x)) {
      ++from_cache;
      continue;
    }
    pts.push_back({x.bytes, x.bytes / (peak.value * kGiga), 0, x.time_s});
  }
  TableFit fit =
      fit_table(name, "bytes", peak, pts, o,
                from_cache > 0 ? fmt::format("measured: {} ({} fitted)", what, pts.size())
                               : "measured: " + what);
  if (from_cache > 0)
    fit.notes.push_back(fmt::format(
        "{} point{} left out: arrays within {}x the cache in front of the memory (the GPU's "
        "L2), which may be served from it; smaller transfers take the smallest fitted size's "
        "efficiency",
        from_cache, from_cache == 1 ? "" : "s", kCacheResidentFactor));
  return fit;
}

} // namespace

void fit_memory_tables(Calibration &c) {
  for (const char *tier : {"hbm", "host"}) {
    std::set<std::string> kinds;
    const auto s = preferred_kinds(c.samples.memory, tier, kinds);
    if (s.empty())
      continue;
    const bool is_mem1 = std::string(tier) == "hbm" ||
                         std::none_of(c.samples.memory.begin(), c.samples.memory.end(),
                                      [](const MemorySample &m) { return m.tier == "hbm"; });
    const auto user_peak = is_mem1 ? c.assumptions.user("mem1.GBps") : std::nullopt;
    std::string kind_list;
    for (const auto &k : kinds)
      kind_list += (kind_list.empty() ? "" : ", ") + k;
    c.memory_by_tier[tier] =
        fit_memory(fmt::format("memory.{}", tier), s, user_peak, c.options,
                   s.front().threads > 0
                       ? fmt::format("{} memory.{}_* points ({}; {} threads)", s.size(), tier,
                                     kind_list, s.front().threads)
                       : fmt::format("{} memory.{}_* points ({})", s.size(), tier, kind_list));
    if (is_mem1) {
      if (std::string(tier) == "host")
        c.memory_by_tier[tier].notes.push_back(
            "no HBM records: host DRAM (memory.host_*) stands for mem1, the processor's own "
            "memory, as on a CPU");
      c.mem1 = c.memory_by_tier[tier];
      c.mem1.name = "mem1";
      c.mem1_tier = tier;
    }
  }
  if (c.mem1_tier.empty()) {
    c.mem1 = assumed_table("mem1", "bytes", *c.assumptions.value("mem1.GBps"),
                           c.assumptions.table("mem1", "mem1"), kMega);
    c.notes.push_back("no memory records: the mem1 table is assumed, not measured");
  }
}

void fit_mem2(Calibration &c) {
  std::vector<OffloadSample> use;
  for (const auto &s : c.samples.offload)
    if ((s.direction == "h2d" || s.direction == "d2h") && s.host_memory == "pinned" &&
        s.placement == "near")
      use.push_back(s);
  if (use.empty()) {
    c.mem2 = assumed_table("mem2", "bytes", *c.assumptions.value("mem2.GBps"),
                           c.assumptions.table("mem2", "mem2"), kMega);
    c.notes.push_back("no offload.h2d/d2h records (pinned, near): the mem2 table is assumed");
  } else {
    std::vector<MemorySample> m;
    for (const auto &s : use)
      m.push_back({"offload", s.direction, s.bytes, s.time_s, 0, s.key});
    c.mem2 = fit_memory("mem2", m, c.assumptions.user("mem2.GBps"), c.options,
                        fmt::format("{} offload.h2d/d2h points (pinned, near)", m.size()));
    // Calculon has one offload tier; pageable or far copies are slower paths of their own.
    c.mem2.notes.push_back("pinned host memory, near placement only: the fast path; every "
                           "path's α/β is under `offload` in coefficients.json");
  }
}

} // namespace railgauge::calibrate
