#include <algorithm>
#include <chrono>
#include <cmath>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include <fmt/format.h>

#include "collectives/mpi/host_gemm_load.h"
#include "collectives/mpi/mpi_collective.h"
#include "collectives/with_gemm.h"
#include "collectives/wrong_elements.h"
#include "harness/byte_rates.h"
#include "harness/lane_contention.h"
#include "harness/run_context.h"
#include "harness/stats.h"
#include "records/collective_record.h"

namespace railgauge::collectives {
namespace {

constexpr std::uint64_t kWithGemmSeed = 2026;
// At most this many of the shorter operation per window: a bound on a window's length when one
// operation is very much shorter than the other.
constexpr int kMaxPerWindow = 1000;

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

// A window (OverlapWindow, with_gemm.h) runs its all_reduces on the main thread (the only one
// that calls MPI: MPI_THREAD_FUNNELED) while a second thread runs its GEMMs.

// This rank's times, per window: each operation's per call, and the share of the window's timed
// spans during which the other still ran (contention_fraction).
struct RankWindows {
  std::vector<double> all_reduce_s, gemm_s, contention;
  void clear() {
    all_reduce_s.clear();
    gemm_s.clear();
    contention.clear();
  }
};

// Each operation's timed calls, then its padding (window_padding), so that neither runs its
// last timed calls alone; every rank pads the same window alike, as the all_reduce needs.
void run_window(const OverlapWindow &window, const OverlapWindow &padding, HostGemmLoad &gemm,
                const std::function<void()> &all_reduce_once, RankWindows &times) {
  LaneSpan gemm_span, all_reduce_span;
  const auto t0 = std::chrono::steady_clock::now();
  std::optional<std::jthread> worker; // joined when it goes, an exception included
  if (window.gemms > 0)
    worker.emplace([&] {
      for (int i = 0; i < window.gemms; ++i)
        gemm.run();
      gemm_span.stop_s = seconds_since(t0);
      for (int i = 0; i < padding.gemms; ++i)
        gemm.run();
      gemm_span.padded_end_s = seconds_since(t0);
    });
  const auto all_reduces = [&](int calls) {
    for (int i = 0; i < calls; ++i)
      all_reduce_once();
  };
  all_reduces(window.all_reduces);
  all_reduce_span.stop_s = seconds_since(t0);
  all_reduces(padding.all_reduces);
  all_reduce_span.padded_end_s = seconds_since(t0);
  worker.reset();
  times.all_reduce_s.push_back(window.all_reduces > 0 ? all_reduce_span.stop_s / window.all_reduces
                                                      : 0.0);
  times.gemm_s.push_back(window.gemms > 0 ? gemm_span.stop_s / window.gemms : 0.0);
  times.contention.push_back(window.all_reduces > 0 && window.gemms > 0
                                 ? contention_fraction({all_reduce_span, gemm_span})
                                 : 1.0);
}

// collectives.mpi_all_reduce_with_gemm: how much an MPI all_reduce and a CPU GEMM slow each
// other down on one rank, the figure behind Calculon's network processor_usage. Mirrors
// offload.with_gemm: each alone, then both in windows balanced so that they overlap for most of
// the window.
class MpiAllReduceWithGemm final : public KeyedBenchmark {
public:
  MpiAllReduceWithGemm(std::shared_ptr<MpiFamily> family, std::shared_ptr<MpiTestHooks> hooks)
      : KeyedBenchmark(
            record::kMpiAllReduceWithGemm,
            "MPI all_reduce on host memory concurrent with an fp32 OpenBLAS GEMM on every rank: "
            "each one's time alone and together (slowest rank), the slowdown of each, data "
            "checked"),
        family_(std::move(family)), hooks_(std::move(hooks)) {}

  std::vector<Axis> axes() const override { return mpi_all_reduce_with_gemm_axes(); }

  std::optional<std::string> supported(const RunContext &, const Point &point) const override {
    if (auto why = host_gemm_unavailable_reason())
      return why;
    const auto p = read_point(Kind::all_reduce, point);
    const int world = family_->world_size_hint();
    if (world < 2)
      return std::string(kNeedsRanks);
    const auto mnk = point.integer(record::kGemmMnk);
    if (mnk < 1 || mnk > 16384)
      return fmt::format("gemm_mnk {} is outside 1..16384", mnk);
    return point_problem(p, world);
  }

  Outcome run(RunContext &ctx, const Point &point) override {
    const auto p = read_point(Kind::all_reduce, point);
    auto &s = family_->session(ctx.peer_timeout_s());
    MpiBuffers buffers(p, mpi_groups(s, p).front());
    buffers.fill(kWithGemmSeed);
    HostGemmLoad gemm(static_cast<int>(point.integer(record::kGemmMnk)));
    const std::string what = fmt::format("all_reduce of {} bytes beside a GEMM", p.size_bytes);

    OverlapWindow window, padding; // what op() runs: timed calls, then untimed ones
    RankWindows times;
    std::vector<MPI_Request> requests;
    const std::function<void()> all_reduce_once = [&] {
      requests.clear();
      buffers.start(s, requests);
      s.wait_all(requests, what, p.timeout_s);
    };
    const Operation op = [&] { run_window(window, padding, gemm, all_reduce_once, times); };

    MpiLockstepGroup world(s, s.world(), p.timeout_s);
    std::vector<int> names;
    for (int r = 0; r < s.size(); ++r)
      names.push_back(r);
    // The lockstep loop keeps the ranks' windows aligned; the times that count are each
    // operation's own, gathered afterwards.
    const auto measure = [&](OverlapWindow w) {
      window = w;
      times.clear();
      HostIterationTimer timer;
      LockstepSpec spec;
      spec.warmup = p.warmup;
      spec.iterations = p.iterations;
      spec.back_to_back_pass = false;
      run_lockstep(world, timer, spec, op, names);
      const auto by_rank = [&](std::vector<double> mine) {
        mine.erase(mine.begin(), mine.begin() + p.warmup);
        auto r = summarize_gathered(world.all_gather(mine), p.iterations, names, s.rank());
        r.timer = std::string(timer.name());
        return r;
      };
      WindowTimes t;
      if (w.all_reduces > 0)
        t.all_reduce = by_rank(times.all_reduce_s);
      if (w.gemms > 0)
        t.gemm = by_rank(times.gemm_s);
      return t;
    };

    const OverlapRun o = measure_overlap(kMaxPerWindow, padding, measure);
    const double gemm_concurrent_s = o.both.gemm.time_s.median;
    // This rank's timed windows of `both` (the warm-up windows left out).
    const std::vector<double> both_contention(times.contention.begin() + p.warmup,
                                              times.contention.end());

    // The data check: fresh inputs, one window more (one all_reduce beside the GEMMs), every
    // rank's output compared, and the GEMM's sampled entries against the exact product.
    buffers.fill(kWithGemmSeed);
    window = {1, o.balanced.gemms};
    padding = {0, 0};
    op();
    if (hooks_->before_check)
      hooks_->before_check(buffers.output(), buffers.output_bytes());
    const CheckResult mine = buffers.check(kWithGemmSeed);
    const std::uint64_t gemm_wrong = gemm.count_wrong();
    const long long wrong_all =
        s.all_reduce_sum(s.world(), static_cast<long long>(mine.wrong), p.timeout_s);
    const long long gemm_wrong_all =
        s.all_reduce_sum(s.world(), static_cast<long long>(gemm_wrong), p.timeout_s);

    const int ranks = s.size();
    Outcome out;
    // The record's own time and bandwidth are the all_reduce's beside the GEMM.
    out.metrics = collective_metrics(o.both.all_reduce, Kind::all_reduce, p.size_bytes, ranks);
    out.metrics.update(overlap_metrics(
        {o.all_reduce_alone_s, o.both.all_reduce.time_s.median, o.gemm_alone_s, gemm_concurrent_s},
        p.size_bytes, ranks));
    out.metrics.update(contention_metrics(both_contention));
    out.metrics.update(window_metrics(o.balanced, o.padding));
    out.metrics[record::kGemmAloneGflops] = gflops_of(gemm.flops(), o.gemm_alone_s);
    out.metrics[record::kGemmConcurrentGflops] =
        measured_or_nan(gflops_of(gemm.flops(), gemm_concurrent_s), gemm_concurrent_s);
    out.metrics[record::kGemmSlowestRank] = o.both.gemm.slowest_rank;
    add_wrong_total(out.metrics, static_cast<std::uint64_t>(wrong_all));
    out.metrics[record::kWrongElementsThisRank] = mine.wrong;
    out.metrics[record::kGemmWrongSamples] = gemm_wrong_all;
    out.metrics[record::kMpiLibrary] = s.library_version();
    add_group_params(out.derived_params,
                     {"mpi", ranks, "world", 0, ranks, s.host_count({}, p.timeout_s)});
    out.derived_params.update({{record::kBlasThreads, gemm.threads()},
                               {record::kBlasLibrary, gemm.library()},
                               {record::kGemmDtype, "fp32"},
                               {record::kInPlace, "out_of_place"}});
    auto problems = mpi_wrong_problems(wrong_all, mine);
    if (auto why = gemm_problem(static_cast<std::uint64_t>(gemm_wrong_all), gemm_wrong))
      problems.push_back(*why);
    out.conclude_data_check(problems);
    return out;
  }

private:
  std::shared_ptr<MpiFamily> family_;
  std::shared_ptr<MpiTestHooks> hooks_;
};

} // namespace

std::unique_ptr<Benchmark> make_mpi_all_reduce_with_gemm(std::shared_ptr<MpiFamily> family,
                                                         std::shared_ptr<MpiTestHooks> hooks) {
  return std::make_unique<MpiAllReduceWithGemm>(std::move(family), std::move(hooks));
}

} // namespace railgauge::collectives
