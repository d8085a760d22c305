// collectives.nccl_all_reduce_with_gemm (compiled only with NCCL and CUDA): how much an NCCL
// all_reduce and a cuBLASLt GEMM on the same GPU slow each other down, the figure behind
// Calculon's networks[i].processor_usage. The GPU counterpart of mpi_all_reduce_with_gemm, with
// offload.with_gemm's method (with_gemm.h): each alone, then both in balanced windows.
#include <algorithm>
#include <memory>
#include <optional>
#include <stdexcept>
#include <vector>

#include <fmt/format.h>

#include "collectives/collective_point.h"
#include "collectives/data_regions.h"
#include "collectives/nccl/device_data_check.h"
#include "collectives/nccl/nccl_collective.h"
#include "collectives/nccl/nccl_group.h"
#include "collectives/nccl/nccl_point.h"
#include "collectives/with_gemm.h"
#include "collectives/wrong_elements.h"
#include "harness/byte_rates.h"
#include "harness/cuda/check.h"
#include "harness/cuda/gemm_load.h"
#include "harness/cuda/resources.h"
#include "harness/inventory/gpu_telemetry.h"
#include "harness/lane_contention.h"
#include "harness/run_context.h"
#include "harness/stats.h"
#include "records/collective_record.h"

namespace railgauge::collectives {
namespace {

constexpr std::uint64_t kNcclWithGemmSeed = 2029;
constexpr std::string_view kKey = record::kNcclAllReduceWithGemm;
// At most this many of the shorter operation per window, and as many again of padding at most.
// Every launch of a window queues behind the gate, and a stream holds on the order of a thousand
// pending launches (a cuBLASLt matmul can be more than one kernel); beyond that the host would
// wait for a GPU that waits for it.
constexpr int kNcclMaxPerWindow = 64;
constexpr std::int64_t kMaxGemmMnk = 16384;

// One local GPU's part of a point: its communicator, the all_reduce's buffers, the GEMM on a
// second stream and the events of a window. Constructed with the GPU current.
struct LocalGpu {
  LocalGpu(int device_index, LocalGroup where, std::size_t bytes, int mnk)
      : device(device_index), group(std::move(where)), send(bytes), recv(bytes),
        gemm(mnk, gemm_stream.get()) {}

  int device;
  LocalGroup group;
  gpu::DeviceBuffer send, recv;
  gpu::Stream gemm_stream;
  gpu::GemmLoad gemm;
  gpu::Event start, all_reduce_stop, gemm_stop, all_reduce_padded_end, gemm_padded_end;
  // Per timed window: from the window's start to each operation's end, and the share of the
  // window's timed spans during which the other operation still ran (contention_fraction).
  std::vector<double> all_reduce_window_s, gemm_window_s, contention;
};

using LocalGpus = std::vector<std::unique_ptr<LocalGpu>>;

double elapsed_s(const gpu::Event &from, const gpu::Event &to) {
  float ms = 0;
  RAILGAUGE_CUDA_CALL(cudaEventElapsedTime(&ms, from.get(), to.get()));
  return ms * 1e-3;
}

// Enqueues one window on every local GPU: `w.all_reduces` all_reduces on the session's (NCCL)
// stream and `w.gemms` GEMMs on the GPU's second stream, both held by `gates` (none: ungated),
// so that they start together and the launches' host cost is not timed; after each operation's stop
// event, its `padding` calls (window_padding), so that neither runs its last timed calls alone. The
// GEMM stream then joins the NCCL stream, so that the session's watchdog wait covers the GEMMs too.
void enqueue_window(NcclSession &s, LocalGpus &gpus, const CollectivePoint &p, std::size_t count,
                    const OverlapWindow &w, const OverlapWindow &padding, SessionGates *gates) {
  std::optional<gpu::StreamGates::Held> held;
  if (gates)
    held.emplace(gates->hold());
  for (std::size_t i = 0; i < gpus.size(); ++i) {
    LocalGpu &g = *gpus[i];
    gpu::DeviceGuard guard(g.device);
    RAILGAUGE_CUDA_CALL(cudaEventRecord(g.start.get(), s.stream(i)));
    RAILGAUGE_CUDA_CALL(cudaStreamWaitEvent(g.gemm_stream.get(), g.start.get(), 0));
  }
  const auto all_reduces = [&](int calls) {
    for (int k = 0; k < calls; ++k) {
      NcclGroup group; // one all_reduce of every local GPU, as nccl_collective enqueues it
      for (std::size_t i = 0; i < gpus.size(); ++i) {
        LocalGpu &g = *gpus[i];
        check_nccl(ncclAllReduce(g.send.get(), g.recv.get(), count, nccl_type(p.dtype),
                                 nccl_op(p.op), g.group.comm, s.stream(i)),
                   "ncclAllReduce");
      }
      group.end();
    }
  };
  const auto record_on_nccl_streams = [&](gpu::Event LocalGpu::*event) {
    for (std::size_t i = 0; i < gpus.size(); ++i)
      RAILGAUGE_CUDA_CALL(cudaEventRecord(((*gpus[i]).*event).get(), s.stream(i)));
  };
  all_reduces(w.all_reduces);
  record_on_nccl_streams(&LocalGpu::all_reduce_stop);
  all_reduces(padding.all_reduces);
  record_on_nccl_streams(&LocalGpu::all_reduce_padded_end);
  for (std::size_t i = 0; i < gpus.size(); ++i) {
    LocalGpu &g = *gpus[i];
    gpu::DeviceGuard guard(g.device);
    for (int k = 0; k < w.gemms; ++k)
      g.gemm.enqueue(g.gemm_stream.get());
    RAILGAUGE_CUDA_CALL(cudaEventRecord(g.gemm_stop.get(), g.gemm_stream.get()));
    for (int k = 0; k < padding.gemms; ++k)
      g.gemm.enqueue(g.gemm_stream.get());
    RAILGAUGE_CUDA_CALL(cudaEventRecord(g.gemm_padded_end.get(), g.gemm_stream.get()));
    RAILGAUGE_CUDA_CALL(cudaStreamWaitEvent(s.stream(i), g.gemm_padded_end.get(), 0));
  }
}

// Times one window (the Operation is enqueue_window): waits for it under the session's
// watchdog, then keeps each local GPU's time of each operation. The iteration's time, which
// run_lockstep summarises but this benchmark does not report, is the longest of them.
class WindowTimer final : public IterationTimer {
public:
  WindowTimer(NcclSession &s, LocalGpus &gpus, std::string what, double timeout_s)
      : s_(s), gpus_(gpus), what_(std::move(what)), timeout_s_(timeout_s) {}
  std::string_view name() const override { return "cuda_event"; }
  double time_one_s(const Operation &op) override {
    op();
    s_.wait(what_, timeout_s_);
    double longest = 0;
    for (auto &g : gpus_) {
      g->all_reduce_window_s.push_back(elapsed_s(g->start, g->all_reduce_stop));
      g->gemm_window_s.push_back(elapsed_s(g->start, g->gemm_stop));
      g->contention.push_back(contention_fraction(
          {{g->all_reduce_window_s.back(), elapsed_s(g->start, g->all_reduce_padded_end)},
           {g->gemm_window_s.back(), elapsed_s(g->start, g->gemm_padded_end)}}));
      longest = std::max({longest, g->all_reduce_window_s.back(), g->gemm_window_s.back()});
    }
    return longest;
  }
  double time_back_to_back_s(const Operation &, int) override {
    throw std::logic_error("WindowTimer: windows are timed one at a time (no back-to-back pass)");
  }

private:
  NcclSession &s_;
  LocalGpus &gpus_;
  std::string what_;
  double timeout_s_;
};

// One LocalGpu per local GPU of the session, each made with its GPU current.
LocalGpus make_local_gpus(NcclSession &s, const std::vector<LocalGroup> &groups, std::size_t bytes,
                          int mnk) {
  LocalGpus gpus;
  for (std::size_t i = 0; i < s.local_count(); ++i) {
    gpu::DeviceGuard guard(s.device(i));
    gpus.push_back(std::make_unique<LocalGpu>(s.device(i), groups[i], bytes, mnk));
  }
  return gpus;
}

// Out of place: the inputs stay as filled, so every window reduces the same data.
void seed_inputs(NcclSession &s, LocalGpus &gpus, const CollectivePoint &p, int n,
                 const Counts &c) {
  for (std::size_t i = 0; i < gpus.size(); ++i)
    seed_on_device(gpus[i]->device, s.stream(i), p.dtype, p.op, kNcclWithGemmSeed,
                   gpus[i]->group.rank, n, input_region(p, gpus[i]->group.rank, c),
                   gpus[i]->send.get(), gpus[i]->recv.get(), gpus[i]->recv.bytes());
}

void clear_window_times(LocalGpus &gpus) {
  for (auto &g : gpus) {
    g->all_reduce_window_s.clear();
    g->gemm_window_s.clear();
    g->contention.clear();
  }
}

// One window ungated first: NCCL connects a communicator's peers at its first collective
// (NCCL_RUNTIME_CONNECT) and CUDA loads kernels at their first launch, either of which may wait
// for work that a spinning gate holds back.
void run_ungated_window(NcclSession &s, LocalGpus &gpus, const CollectivePoint &p,
                        std::size_t count, NcclIterationTimer &drainer) {
  enqueue_window(s, gpus, p, count, {1, 1}, {0, 0}, nullptr);
  drainer.drain();
}

// This process's GPUs' contention fractions, the timed windows of the last measurement.
std::vector<double> window_contention(const LocalGpus &gpus) {
  std::vector<double> contention;
  for (const auto &g : gpus)
    contention.insert(contention.end(), g->contention.begin(), g->contention.end());
  return contention;
}

// This process's wrong all_reduce elements and GEMM samples, per local GPU.
struct LocalCheck {
  CheckResult check;
  std::vector<double> wrong_per_gpu, gemm_wrong_per_gpu;
  std::uint64_t gemm_wrong_mine = 0;
};

// Every GPU's all_reduce output compared (once `drainer` has waited for the window), and the
// GEMM's sampled entries against the exact product.
LocalCheck check_window(NcclSession &s, LocalGpus &gpus, const CollectivePoint &p, int n,
                        const Counts &c, NcclIterationTimer &drainer) {
  DeviceDataCheck checks;
  for (std::size_t i = 0; i < gpus.size(); ++i)
    checks.enqueue(gpus[i]->device, s.stream(i), gpus[i]->recv.get(),
                   *output_region(p, kNcclWithGemmSeed, gpus[i]->group.rank, n, c, Backend::nccl));
  drainer.drain();
  LocalCheck local;
  const auto results = checks.results();
  for (std::size_t i = 0; i < gpus.size(); ++i) {
    local.wrong_per_gpu.push_back(static_cast<double>(results[i].wrong));
    local.check.add(results[i]);
    auto &g = gpus[i];
    gpu::DeviceGuard guard(g->device);
    const std::uint64_t gemm_wrong = g->gemm.count_wrong(g->gemm_stream.get());
    local.gemm_wrong_per_gpu.push_back(static_cast<double>(gemm_wrong));
    local.gemm_wrong_mine += gemm_wrong;
  }
  return local;
}

class NcclAllReduceWithGemm final : public KeyedBenchmark {
public:
  NcclAllReduceWithGemm()
      : KeyedBenchmark(
            std::string(kKey),
            "NCCL all_reduce concurrent with a bf16 cuBLASLt GEMM on the same GPU (two streams): "
            "each one's time alone and together (slowest rank), the slowdown of each, data "
            "checked") {}
  std::vector<Axis> axes() const override { return nccl_all_reduce_with_gemm_axes(); }

  std::optional<std::string> supported(const RunContext &ctx, const Point &point) const override {
    if (const auto mnk = point.integer(record::kGemmMnk); mnk < 1 || mnk > kMaxGemmMnk)
      return fmt::format("gemm_mnk {} is outside 1..{}", mnk, kMaxGemmMnk);
    return nccl_point_problem(ctx, read_point(Kind::all_reduce, point));
  }

  Outcome run(RunContext &ctx, const Point &point) override {
    const auto p = read_point(Kind::all_reduce, point);
    NcclSession &s = open_nccl_session(session_, ctx, std::string(kKey), p.timeout_s);
    const auto groups = local_groups(s, p, session_.rank_hosts);
    const int n = groups.front().size; // every group of a type has the axis's size
    const std::size_t elt = element_bytes(p.dtype);
    const auto c = *counts_for(Kind::all_reduce, p.size_bytes, elt, n);
    const int mnk = static_cast<int>(point.integer(record::kGemmMnk));
    LocalGpus gpus = make_local_gpus(s, groups, c.count * elt, mnk);
    DrainOnFailure drain_on_failure(s, p.timeout_s);
    seed_inputs(s, gpus, p, n, c);

    OverlapWindow window, padding; // what op() enqueues: timed calls, then untimed ones
    SessionGates gates(s);
    const Operation op = [&] { enqueue_window(s, gpus, p, c.count, window, padding, &gates); };
    WindowTimer timer(s, gpus,
                      fmt::format("all_reduce of {} bytes beside {}^3 GEMMs", p.size_bytes, mnk),
                      p.timeout_s);
    // The lockstep group drains the session's streams before each barrier (the GEMM streams
    // have joined them) through an NCCL iteration timer of its own.
    NcclIterationTimer drainer(s, "the previous window", p.timeout_s);
    NcclLockstepGroup group(ctx, drainer, fmt::format("lockstep/{}/{}", kKey, point.label()),
                            p.timeout_s);
    LockstepSpec spec;
    spec.warmup = p.warmup;
    spec.iterations = p.iterations;
    spec.back_to_back_pass = false;
    // Rows in world-rank order: a process's GPUs are consecutive ranks, one row each.
    const auto slowest_rank = [&](std::vector<double> LocalGpu::*times, int per_window) {
      std::vector<double> mine;
      for (auto &g : gpus)
        for (double t : (*g).*times)
          mine.push_back(t / per_window);
      auto r = summarize_gathered(group.all_gather(mine), p.iterations, {}, s.rank(0));
      r.timer = std::string(timer.name());
      return r;
    };
    const auto measure = [&](OverlapWindow w) {
      window = w;
      clear_window_times(gpus);
      run_lockstep(group, timer, spec, op);
      WindowTimes t;
      if (w.all_reduces > 0)
        t.all_reduce = slowest_rank(&LocalGpu::all_reduce_window_s, w.all_reduces);
      if (w.gemms > 0)
        t.gemm = slowest_rank(&LocalGpu::gemm_window_s, w.gemms);
      return t;
    };

    run_ungated_window(s, gpus, p, c.count, drainer);
    GpuTelemetryWindows telemetry(s.uuids()); // this process's GPUs, every timed window
    const OverlapRun o = measure_overlap(kNcclMaxPerWindow, padding, measure);
    const double gemm_concurrent_s = o.both.gemm.time_s.median;
    const nlohmann::json telemetry_json = telemetry.finish();
    const std::vector<double> contention = window_contention(gpus);

    // The data check: fresh inputs and one window more (one all_reduce beside the GEMMs); every
    // GPU's output compared, and the GEMM's sampled entries against the exact product.
    seed_inputs(s, gpus, p, n, c);
    window = {1, o.balanced.gemms};
    padding = {0, 0};
    op();
    const LocalCheck local = check_window(s, gpus, p, n, c, drainer);
    const CheckResult &check = local.check;
    const auto wrong = wrong_across_ranks(group.all_gather(local.wrong_per_gpu));
    const auto gemm_wrong_all =
        wrong_across_ranks(group.all_gather(local.gemm_wrong_per_gpu)).total;

    Outcome out;
    // The record's own time and bandwidth are the all_reduce's beside the GEMM.
    out.metrics = collective_metrics(o.both.all_reduce, Kind::all_reduce, p.size_bytes, n);
    out.metrics.update(overlap_metrics(
        {o.all_reduce_alone_s, o.both.all_reduce.time_s.median, o.gemm_alone_s, gemm_concurrent_s},
        p.size_bytes, n));
    const double flops = gpus.front()->gemm.flops();
    out.metrics[record::kGemmAloneTflops] = tflops_of(flops, o.gemm_alone_s);
    out.metrics[record::kGemmConcurrentTflops] =
        measured_or_nan(tflops_of(flops, gemm_concurrent_s), gemm_concurrent_s);
    out.metrics.update(window_metrics(o.balanced, o.padding));
    out.metrics[record::kGemmSlowestRank] = o.both.gemm.slowest_rank;
    out.metrics[record::kTelemetry] = telemetry_json;
    // A window of one operation has no other to contend with: only those of `both` count.
    out.metrics.update(contention_metrics(contention));
    add_gate_timeouts(out.metrics, gates.timed_out());
    out.metrics[record::kWrongElementsThisProcess] = check.wrong;
    add_wrong_elements(out.metrics, wrong);
    out.metrics[record::kGemmWrongSamples] = gemm_wrong_all;
    add_nccl_identity(out.metrics);
    add_group_params(out.derived_params, {"nccl", s.nranks(), groups.front().type,
                                          groups.front().index, n, groups.front().hosts});
    out.derived_params.update({{record::kGemmDtype, "bf16 in, fp32 accumulate and out"},
                               {record::kInPlace, "out_of_place"}});
    std::vector<std::string> problems;
    if (auto why = wrong_problem(wrong, check))
      problems.push_back(*why);
    if (auto why = gemm_problem(gemm_wrong_all, local.gemm_wrong_mine))
      problems.push_back(*why);
    out.conclude_data_check(problems);
    return out;
  }

private:
  NcclSessionSlot session_;
};

} // namespace

std::unique_ptr<Benchmark> make_nccl_all_reduce_with_gemm() {
  return std::make_unique<NcclAllReduceWithGemm>();
}

} // namespace railgauge::collectives
