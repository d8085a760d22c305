#include "cli/burnin_plan.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <ctime>
#include <map>

#include <fmt/format.h>

#include "harness/axis.h"
#include "harness/error.h"
#include "harness/metric_names.h"

namespace railgauge {
namespace {

// The timed phases' floors: shorter, and the settled part of the window (80%) holds too few
// series points per GPU to say more than a short point would.
constexpr double kMinGemmBurnS = 30;
constexpr double kMinHbmBurnS = 15;
// The FP64 and TF32 burns stress other units for their data check, not the sustained rate of the
// bf16 burn: half its floor still leaves 12 s of settled window.
constexpr double kMinGemmDtypeBurnS = 15;

// What memory.pattern does per round: 4 patterns, each written over the covered memory and
// read back once (memory/cuda/hbm_pattern.h), over 0.98 of the memory (its margin). Its passes
// run at 0.83 of the copy rate memory.burn sustains: 3,559 against 4,281 GB/s on one H200
// (results/reference/h200-burnin-2026-11-28, healthy), where allocating, seeding and freeing
// added 0.2 s.
constexpr double kPatternPassesPerRound = 8;
constexpr double kPatternCoveredShare = 0.98;
constexpr double kPatternRateOfCopy = 0.83;
constexpr double kPatternAllocationS = 0.5;

// memory.peer_copy copies one pair at a time, each (repetitions + 1) times (memory/cuda/
// peer_copy.h). The rate it is planned at is the slowest Hopper SXM NVLink a profile may meet:
// 176.08 GB/s, an H800's device_to_device_memcpy_write_ce (nvbandwidth, every pair within 0.1%
// of it; tests/fixtures/verdicts/real/llmaction_h800x8_nvbandwidth_v0.2_all_testcases_EXTRACT.txt)
// against ~376 GB/s on an H100 SXM (p2pBandwidthLatencyTest, NVIDIA/nccl#1264). Each pair adds
// an estimate of 0.1 s for its peer mapping, fill, zeroing and check; the phase 5 s for every
// GPU's context and buffers when there is a pair to copy (on one GPU the point is waived at once:
// 0 s measured).
constexpr double kPeerCopyPlanGbytesPerS = 176.08;
constexpr double kPeerCopyPerPairS = 0.1;
constexpr double kPeerCopySetupS = 5;
constexpr double kPeerCopyDefaultBytes = 256.0 * (1 << 20);
constexpr double kPeerCopyDefaultRepetitions = 8;

// A phase's axis that must be one positive number (`whole`: a whole one), else `otherwise` where
// the suite leaves it out. Throws InputError at the suite's line.
double positive_axis(const SuiteEntry &e, const std::string &axis, double otherwise, bool whole) {
  const auto it = e.axes.find(axis);
  if (it == e.axes.end())
    return otherwise;
  try {
    std::size_t used = 0;
    const double v =
        whole ? static_cast<double>(std::stoll(it->second, &used)) : std::stod(it->second, &used);
    if (used == it->second.size() && v > 0)
      return v;
  } catch (const std::exception &) {
  }
  if (whole)
    throw InputError(fmt::format("{} = '{}' is not one count", axis, it->second), e.where,
                     "a burn-in phase runs one count of rounds: give a whole number, e.g. 4");
  throw InputError(fmt::format("{} = '{}' is not one number of seconds", axis, it->second), e.where,
                   "a burn-in phase runs for one duration: give seconds, e.g. 120");
}

double axis_seconds(const SuiteEntry &e, const std::string &axis, double otherwise) {
  return positive_axis(e, axis, otherwise, false);
}

// memory.peer_copy's time on `gpus` GPUs (see kPeerCopyPlanGbytesPerS), what it counts in
// `estimate`.
double peer_copy_around_s(const SuiteEntry &e, int gpus, std::string &estimate) {
  double bytes = kPeerCopyDefaultBytes;
  if (const auto it = e.axes.find("size_bytes"); it != e.axes.end()) {
    const auto parsed = parse_bytes(it->second);
    if (!parsed || *parsed <= 0)
      throw InputError(fmt::format("size_bytes = '{}' is not one size", it->second), e.where,
                       "the peer copy phase copies one size: give bytes, e.g. 256MiB");
    bytes = static_cast<double>(*parsed);
  }
  const double repetitions = positive_axis(e, "repetitions", kPeerCopyDefaultRepetitions, true);
  const int pairs = gpus * (gpus - 1);
  const double copies_s = pairs * (repetitions + 1) * bytes / (kPeerCopyPlanGbytesPerS * 1e9);
  if (pairs == 0) {
    estimate = "one GPU: no pair to copy, the point is waived at once";
    return 0;
  }
  estimate = fmt::format("{} pair(s) x {:.0f} copies of {:.0f} MiB at {:.0f} GB/s (an H800's "
                         "NVLink, the slowest assumed) + {} s a pair + {:.0f} s setup",
                         pairs, repetitions + 1, bytes / (1 << 20), kPeerCopyPlanGbytesPerS,
                         kPeerCopyPerPairS, kPeerCopySetupS);
  return std::ceil(copies_s + pairs * kPeerCopyPerPairS) + kPeerCopySetupS;
}

// What surrounds each phase's timed work; the run records the real figure (burnin.json). Seven
// one-GPU runs (results/reference/h100-burnin-2026-11-26, h200-burnin-2026-11-27 and -28, healthy
// and beside a co-tenant) took, beyond each duration: each gemm.burn 0.21 to 0.48 s, memory.burn
// 0.09 to 0.18 s, each host copy 2.9 to 4.1 s (its 2 s warm-up, then sampling that stopped once
// steady, before its 3 s budget), the all_reduce 1.0 to 2.6 s. The one-GPU terms below are those;
// what grows with the GPUs (a context, operands and pinned buffers for each, an n-rank
// communicator and its 16 GiB reduction) keeps the margin the older estimates had for 8 GPUs
// until a whole node is measured.
BurninPhase phase_of(const SuiteEntry &e, int gpus, const BurninHbm &hbm) {
  BurninPhase p;
  const auto dtype = e.axes.find("dtype");
  p.key = burnin_phase_name(e.key_glob, dtype == e.axes.end() ? "" : dtype->second);
  if (e.key_glob == "gemm.burn") {
    p.duration_s = axis_seconds(e, metric::kDurationS, 60);
    p.min_duration_s = p.key == e.key_glob ? kMinGemmBurnS : kMinGemmDtypeBurnS;
    p.around_s = 0.5 + (gpus - 1);
    p.estimate = "context, operands, cuBLASLt heuristic, fp64 check of the first result";
  } else if (e.key_glob == "memory.burn") {
    p.duration_s = axis_seconds(e, metric::kDurationS, 30);
    p.min_duration_s = kMinHbmBurnS;
    p.around_s = 0.25 + 0.25 * (gpus - 1);
    p.estimate = "two arrays allocated and seeded, the whole destination checked";
  } else if (e.key_glob == "memory.pattern") {
    // Every GPU tests its own memory at once: the time is one GPU's, whatever their number.
    const double rounds = positive_axis(e, "rounds", 4, true);
    const double pattern_gbytes_per_s = kPatternRateOfCopy * hbm.bandwidth_gbytes_per_s;
    const double passes_s = rounds * kPatternPassesPerRound * kPatternCoveredShare *
                            hbm.memory_bytes / (pattern_gbytes_per_s * 1e9);
    p.around_s = passes_s + kPatternAllocationS;
    p.estimate = fmt::format("{:.0f} round(s) x 8 passes over {:.0f} GB at {:.0f} GB/s, 0.83 of "
                             "the copy rate ({}), + {} s allocation",
                             rounds, kPatternCoveredShare * hbm.memory_bytes / 1e9,
                             pattern_gbytes_per_s, hbm.gpu_name, kPatternAllocationS);
  } else if (e.key_glob == "memory.peer_copy") {
    p.around_s = peer_copy_around_s(e, gpus, p.estimate);
  } else if (e.key_glob.starts_with("offload.")) {
    // Pinned host memory for every GPU, then the warm-up and the sampling budget.
    // Sampling stops once the copies are steady, 1 to 2 s in (at most time_budget_s).
    p.around_s = e.measure.warmup_s + std::min(1.5, e.measure.time_budget_s) + 0.5 * gpus;
    p.estimate = fmt::format("{} s warm-up + ~1.5 s sampling (at most {} s) + pinned buffers for "
                             "{} GPU(s)",
                             e.measure.warmup_s, e.measure.time_budget_s, gpus);
  } else if (e.key_glob.starts_with("collectives.nccl")) {
    p.around_s = 2 + 2.5 * (gpus - 1);
    p.estimate = "communicator init, buffers filled and checked on the GPUs, 25 iterations";
  } else {
    p.around_s = 30;
    p.estimate = "a key the plan does not know: 30 s assumed";
  }
  return p;
}

} // namespace

BurninHbm burnin_hbm(const std::string &gpu_name, double memory_bytes) {
  const bool h200 = gpu_name.find("H200") != std::string::npos;
  return {gpu_name, memory_bytes, h200 ? 4273.9 : 3022.8};
}

BurninHbm burnin_hbm_without_gpu() { return {"an H200 SXM assumed: no GPU here", 141e9, 4273.9}; }

BurninPlan plan_burnin(std::vector<SuiteEntry> entries, int gpus, double budget_s,
                       const BurninHbm &hbm) {
  if (!(budget_s > 0))
    throw InputError(fmt::format("budget {} s is not a duration", budget_s), "--budget",
                     "give seconds, e.g. --budget 600");
  BurninPlan plan;
  plan.gpus = gpus;
  plan.budget_s = budget_s;
  double fixed = 0, timed = 0, least = 0;
  for (const auto &e : entries) {
    plan.phases.push_back(phase_of(e, gpus, hbm));
    const auto &p = plan.phases.back();
    fixed += p.around_s + (p.min_duration_s > 0 ? 0 : p.duration_s);
    timed += p.min_duration_s > 0 ? p.duration_s : 0;
    least += p.around_s + (p.min_duration_s > 0 ? p.min_duration_s : p.duration_s);
  }
  // Whole seconds up: "needs 88 s, give 88" once refused 88 (the need was 88.4).
  if (least > budget_s)
    throw InputError(
        fmt::format("the burn-in needs at least {:.1f} s with every phase at its "
                    "shortest, more than the {:g} s budget",
                    least, budget_s),
        "--budget",
        fmt::format("give --budget {:.0f} or more: no phase is dropped", std::ceil(least)));
  // Shorten the timed phases in proportion, none below its floor.
  if (fixed + timed > budget_s && timed > 0) {
    plan.trimmed = true;
    double scale = (budget_s - fixed) / timed;
    for (int round = 0; round < 3; ++round) { // floors that bind leave the rest to the others
      double pinned = 0, free_s = 0;
      for (const auto &p : plan.phases)
        if (p.min_duration_s > 0) {
          if (p.duration_s * scale < p.min_duration_s)
            pinned += p.min_duration_s;
          else
            free_s += p.duration_s;
        }
      if (free_s <= 0)
        break;
      scale = std::min(scale, (budget_s - fixed - pinned) / free_s);
    }
    for (auto &p : plan.phases)
      if (p.min_duration_s > 0)
        p.duration_s = std::max(p.min_duration_s, std::floor(p.duration_s * scale));
  }
  for (std::size_t i = 0; i < entries.size(); ++i)
    if (plan.phases[i].min_duration_s > 0)
      entries[i].axes[metric::kDurationS] = fmt::format("{}", plan.phases[i].duration_s);
  plan.entries = std::move(entries);
  for (const auto &p : plan.phases)
    plan.planned_s += p.planned_s();
  return plan;
}

nlohmann::json BurninPlan::to_json() const {
  nlohmann::json rows = nlohmann::json::array();
  for (const auto &p : phases)
    rows.push_back({{"key", p.key},
                    {"duration_s", p.duration_s},
                    {"around_s", p.around_s},
                    {"planned_s", p.planned_s()},
                    {"estimate", p.estimate}});
  return {{"gpus", gpus},
          {"budget_s", budget_s},
          {"planned_s", planned_s},
          {"trimmed", trimmed},
          {"phases", rows}};
}

std::string render_burnin_plan(const BurninPlan &plan) {
  std::string out = fmt::format(
      "Burn-in plan for {} GPU(s), every GPU loaded at once in each phase: planned time per "
      "phase (s) = its set duration + an estimate of what surrounds it\n",
      plan.gpus);
  out += fmt::format("{:<28} {:>10} {:>8} {:>9}  {}\n", "phase", "duration", "around", "planned",
                     "around is (estimate)");
  for (const auto &p : plan.phases)
    out += fmt::format("{:<28} {:>10} {:>8.1f} {:>9.1f}  {}\n", p.key,
                       p.duration_s > 0 ? fmt::format("{:.0f}", p.duration_s) : "-", p.around_s,
                       p.planned_s(), p.estimate);
  out += fmt::format("planned {:.0f} s ({:.1f} min) of a {:.0f} s budget{}\n", plan.planned_s,
                     plan.planned_s / 60, plan.budget_s,
                     plan.trimmed ? ": the timed phases were shortened to fit" : "");
  return out;
}

double utc_seconds(const std::string &timestamp) {
  std::tm tm{};
  double seconds = 0;
  char zone = 0;
  if (std::sscanf(timestamp.c_str(), "%d-%d-%dT%d:%d:%lf%c", &tm.tm_year, &tm.tm_mon, &tm.tm_mday,
                  &tm.tm_hour, &tm.tm_min, &seconds, &zone) != 7 ||
      zone != 'Z')
    throw InputError(fmt::format("'{}' is not a UTC time", timestamp), "time_utc",
                     "expected the form 2026-11-22T10:00:00.123Z");
  tm.tm_year -= 1900;
  tm.tm_mon -= 1;
  return static_cast<double>(timegm(&tm)) + seconds;
}

nlohmann::json phase_wall_times(const std::vector<nlohmann::json> &records,
                                const std::string &start_utc) {
  std::vector<std::string> order;
  std::map<std::string, double> last_end;
  for (const auto &r : records) {
    if (!r.is_object() || !r.contains("key") || !r.contains("time_utc") ||
        !r["time_utc"].is_string())
      continue;
    const std::string key =
        burnin_phase_of(r["key"].get<std::string>(), r.value("params", nlohmann::json::object()));
    const double end = utc_seconds(r["time_utc"].get<std::string>());
    if (!last_end.contains(key))
      order.push_back(key);
    last_end[key] = std::max(last_end[key], end);
  }
  nlohmann::json out = nlohmann::json::object();
  double from = utc_seconds(start_utc);
  for (const auto &key : order) {
    out[key] = last_end[key] - from;
    from = last_end[key];
  }
  return out;
}

} // namespace railgauge
