#include "collectives/nccl/nccl_collective.h"

#include <span>

#include <fmt/format.h>

#include "collectives/collective_point.h"
#include "collectives/concurrent_groups.h"
#include "collectives/data_regions.h"
#include "collectives/groups.h"
#include "collectives/nccl/device_data_check.h"
#include "collectives/nccl/nccl_buffer.h"
#include "collectives/nccl/nccl_group.h"
#include "collectives/nccl/nccl_point.h"
#include "collectives/wrong_elements.h"
#include "harness/cuda/check.h"
#include "harness/cuda/device.h"
#include "harness/cuda/resources.h"
#include "harness/inventory/gpu_telemetry.h"
#include "harness/run_context.h"
#include "records/collective_record.h"

namespace railgauge::collectives {
namespace {

constexpr std::uint64_t kNcclSeed = 2027;

// The note of a point whose busbw exceeds the link_gbytes_per_s axis (metrics.above_link_rate).
constexpr const char *kAboveLinkRateNote =
    "busbw exceeds the link rate: NCCL reduced in the switch (NVLS or SHARP/CollNet), so the "
    "busbw factor overstates the bytes on a link";

// One collective of an iteration: a local GPU's part in one group type's communicator, with its
// buffers laid out as nccl-tests lays them (in place, all_gather sends from recv + rank * count
// and reduce_scatter receives at send + rank * count) and the stream it runs on: the session's
// for the first group type, one of its own for each other type of a concurrent point, so that
// the types run at once as training runs its tensor, pipeline and data groups.
struct Lane {
  std::size_t gpu = 0; // the session's local index
  int device = 0;
  LocalGroup group;
  Counts c;
  std::unique_ptr<NcclBuffer> send, recv;
  std::unique_ptr<gpu::Stream> own_stream; // other types of a concurrent point
  cudaStream_t stream = nullptr;
  // After this lane's collective: a concurrent type's own end (made with its device current:
  // an event is recorded only on streams of its own device).
  std::unique_ptr<gpu::Event> end;
  std::vector<double> times_s; // a concurrent type's time per timed iteration
};

// A concurrent point's timer: the iteration as NcclIterationTimer times it (every type, to the
// last one's end), then each lane's own time from the iteration's fork to its end.
class ConcurrentTypesTimer final : public IterationTimer {
public:
  ConcurrentTypesTimer(NcclIterationTimer &inner,
                       const std::vector<std::unique_ptr<gpu::Event>> &fork,
                       std::vector<Lane> &lanes)
      : inner_(inner), fork_(fork), lanes_(lanes) {}
  std::string_view name() const override { return inner_.name(); }
  double time_one_s(const Operation &op) override {
    const double t = inner_.time_one_s(op); // waited for: the events are complete
    for (auto &lane : lanes_) {
      float ms = 0;
      RAILGAUGE_CUDA_CALL(cudaEventElapsedTime(&ms, fork_[lane.gpu]->get(), lane.end->get()));
      lane.times_s.push_back(ms * 1e-3);
    }
    return t;
  }
  double time_back_to_back_s(const Operation &op, int n) override {
    return inner_.time_back_to_back_s(op, n);
  }

private:
  NcclIterationTimer &inner_;
  const std::vector<std::unique_ptr<gpu::Event>> &fork_;
  std::vector<Lane> &lanes_;
};

// Every collective of an iteration, by group type, then local GPU: lanes[t * local_count + i],
// each with its buffers (allocated as `alloc` says), its stream and its end event.
std::vector<Lane> make_lanes(NcclSession &s, const std::vector<std::vector<LocalGroup>> &by_type,
                             Kind kind, const CollectivePoint &p, BufferAlloc alloc) {
  const std::size_t elt = element_bytes(p.dtype);
  std::vector<Lane> lanes(by_type.size() * s.local_count());
  for (std::size_t t = 0; t < by_type.size(); ++t)
    for (std::size_t i = 0; i < s.local_count(); ++i) {
      Lane &l = lanes[t * s.local_count() + i];
      gpu::DeviceGuard guard(s.device(i));
      l.gpu = i;
      l.device = s.device(i);
      l.group = by_type[t][i];
      l.c = *counts_for(kind, p.size_bytes, elt, l.group.size); // supported() checked it
      const std::size_t big = std::max(l.c.send_elems, l.c.recv_elems) * elt;
      l.recv = std::make_unique<NcclBuffer>(p.in_place ? big : l.c.recv_elems * elt, alloc);
      if (!p.in_place)
        l.send = std::make_unique<NcclBuffer>(l.c.send_elems * elt, alloc);
      if (t > 0)
        l.own_stream = std::make_unique<gpu::Stream>();
      l.end = std::make_unique<gpu::Event>();
      l.stream = t > 0 ? l.own_stream->get() : s.stream(i);
    }
  return lanes;
}

// One event per local GPU: where a concurrent iteration forks the other types' streams.
std::vector<std::unique_ptr<gpu::Event>> fork_events(NcclSession &s) {
  std::vector<std::unique_ptr<gpu::Event>> fork;
  for (std::size_t i = 0; i < s.local_count(); ++i) {
    gpu::DeviceGuard guard(s.device(i));
    fork.push_back(std::make_unique<gpu::Event>());
  }
  return fork;
}

// Seeded on each GPU's session stream, every GPU at once: the iteration forks the other
// types' streams from it, so they read the inputs after they are written.
void seed_lanes(NcclSession &s, std::vector<Lane> &lanes, const CollectivePoint &p) {
  for (auto &l : lanes)
    seed_on_device(l.device, s.stream(l.gpu), p.dtype, p.op, kNcclSeed, l.group.rank, l.group.size,
                   input_region(p, l.group.rank, l.c), p.in_place ? l.recv->get() : l.send->get(),
                   l.recv->get(), l.recv->bytes());
}

// Every lane's check enqueued behind its collective, all GPUs at once, then one wait. The wrong
// elements per local GPU, in world-rank order (this process's ranks are consecutive), every
// type's lanes summed, go to wrong_per_gpu.
CheckResult check_lanes(NcclSession &s, const std::vector<Lane> &lanes, const CollectivePoint &p,
                        const std::string &what, std::vector<double> &wrong_per_gpu) {
  DeviceDataCheck checks;
  std::vector<std::size_t> lane_gpus;
  for (const auto &l : lanes)
    if (const auto region =
            output_region(p, kNcclSeed, l.group.rank, l.group.size, l.c, Backend::nccl)) {
      checks.enqueue(l.device, s.stream(l.gpu), l.recv->get(), *region);
      lane_gpus.push_back(l.gpu);
    }
  s.wait("the data check of " + what, p.timeout_s);
  CheckResult check;
  wrong_per_gpu.assign(s.local_count(), 0.0);
  const auto results = checks.results();
  for (std::size_t k = 0; k < results.size(); ++k) {
    wrong_per_gpu[lane_gpus[k]] += static_cast<double>(results[k].wrong);
    check.add(results[k]);
  }
  return check;
}

// A concurrent point's times per group type: this process's GPUs, the timed iterations.
std::vector<GroupTypeTimes> group_type_times(NcclSession &s,
                                             const std::vector<std::vector<LocalGroup>> &by_type,
                                             const std::vector<Lane> &lanes,
                                             const CollectivePoint &p) {
  std::vector<GroupTypeTimes> types;
  for (std::size_t t = 0; t < by_type.size(); ++t) {
    GroupTypeTimes times{by_type[t].front().type, by_type[t].front().size, {}};
    for (std::size_t i = 0; i < s.local_count(); ++i) {
      const auto &mine = lanes[t * s.local_count() + i].times_s;
      times.mine.insert(times.mine.end(), mine.end() - p.iterations, mine.end());
    }
    types.push_back(std::move(times));
  }
  return types;
}

#if NCCL_VERSION_CODE >= NCCL_VERSION(2, 28, 0)
// Weak, as nccl-tests declares it: a run-time NCCL older than 2.28 has no ncclAlltoAll.
#pragma weak ncclAlltoAll
#endif

// Whether this process's NCCL has ncclAlltoAll (2.28 on), which nccl-tests' alltoall calls
// there instead of grouped send/recv; railgauge calls the same, out of place.
bool nccl_has_alltoall() {
#if NCCL_VERSION_CODE >= NCCL_VERSION(2, 28, 0)
  int version = 0;
  using AlltoAll =
      ncclResult_t (*)(const void *, void *, size_t, ncclDataType_t, ncclComm_t, cudaStream_t);
  const AlltoAll call = ncclAlltoAll; // null where the run-time library lacks the weak symbol
  return call != nullptr && ncclGetVersion(&version) == ncclSuccess &&
         version >= NCCL_VERSION(2, 28, 0);
#else
  return false;
#endif
}

// collectives.nccl_<kind>: NCCL's collective on device memory, timed with CUDA events per
// iteration, on the world or on the groups of one group type (ncclCommSplit by colour).
class NcclCollective final : public NcclKindBenchmark {
public:
  explicit NcclCollective(Kind kind)
      : NcclKindBenchmark(
            kind, record::keys_of(kind).nccl,
            fmt::format("NCCL {} on GPU memory: per-iteration CUDA-event time (max over "
                        "ranks), algbw and busbw (GB/s), slowest rank, data checked",
                        to_string(kind))) {}
  std::vector<Axis> axes() const override {
    auto axes = collective_axes(kind_, false);
    axes.push_back({record::kCudaGraph,
                    AxisType::text,
                    "off: enqueue each iteration; on: replay a captured CUDA graph",
                    {std::string("off")},
                    {"off", "on"}});
    axes.push_back({record::kBuffers,
                    AxisType::text,
                    "cuda_malloc, or nccl_mem_alloc (the cuMem API, as nccl-tests >= 2.19 "
                    "allocates its buffers)",
                    {std::string("cuda_malloc")},
                    {"cuda_malloc", "nccl_mem_alloc"}});
    axes.push_back({record::kLinkGbytesPerS,
                    AxisType::real,
                    "per-direction link rate; busbw above it is flagged (NVLS/SHARP reduce in "
                    "the switch); 0: not checked",
                    {0.0},
                    {}});
    return axes;
  }

  std::optional<std::string> supported(const RunContext &ctx, const Point &point) const override {
    const auto p = read_point(kind_, point);
    if (auto why = nccl_point_problem(ctx, p, true))
      return why;
    if (p.group_type == "concurrent" && point.text(record::kCudaGraph) == "on")
      return "cuda_graph=on captures one stream per GPU: a concurrent point's group types run "
             "on streams of their own (give cuda_graph=off)";
    // NCCL's CUDA-graph guide: with several GPUs per process, cudaGraphLaunch of one GPU's graph
    // may block until the others' are launched, and one thread launches them in turn.
    if (point.text(record::kCudaGraph) == "on" && ctx.world_size() <= 1 &&
        gpu::cuda_device_count() > 1)
      return "cuda_graph=on needs one process per GPU (srun or mpirun): one process driving "
             "several GPUs may deadlock in cudaGraphLaunch (NCCL's CUDA-graph documentation)";
    return std::nullopt;
  }

  Outcome run(RunContext &ctx, const Point &point) override {
    const auto p = read_point(kind_, point);
    NcclSession &s = open_session(ctx, p.timeout_s);
    const auto by_type = local_groups_by_type(s, p, session_.rank_hosts);
    const bool concurrent = by_type.size() > 1;
    const bool alltoall_call = kind_ == Kind::alltoall && !p.in_place && nccl_has_alltoall();
    std::vector<Lane> lanes =
        make_lanes(s, by_type, kind_, p, parse_buffer_alloc(point.text(record::kBuffers)));
    const std::vector<std::unique_ptr<gpu::Event>> fork = fork_events(s);
    GraphsOfPoint graphs(s);
    DrainOnFailure drain_on_failure(s, p.timeout_s);
    auto fill = [&] { seed_lanes(s, lanes, p); };
    const Operation enqueue = [&] {
      enqueue_iteration(s, lanes, fork, by_type.size(), p, alltoall_call);
    };
    fill();

    const std::string what = fmt::format("{} of {} bytes", to_string(kind_), p.size_bytes);
    NcclIterationTimer timer(s, what, p.timeout_s);
    NcclLockstepGroup group(ctx, timer, fmt::format("lockstep/{}/{}", key(), point.label()),
                            p.timeout_s);
    LockstepSpec spec;
    spec.warmup = p.warmup;
    spec.iterations = p.iterations;

    Operation op = enqueue;
    if (point.text(record::kCudaGraph) == "on") {
      // Capture one iteration on every local stream, then replay it.
      s.capture_graphs(enqueue);
      op = [&] { s.launch_graphs(); };
    }

    ConcurrentTypesTimer types_timer(timer, fork, lanes);
    GpuTelemetryWindows telemetry(s.uuids()); // this process's GPUs while the iterations run
    auto result = run_lockstep(group,
                               concurrent ? static_cast<IterationTimer &>(types_timer)
                                          : static_cast<IterationTimer &>(timer),
                               spec, op);
    const nlohmann::json telemetry_json = telemetry.finish();
    group.name_slowest_gpu(result, p.iterations);

    fill();
    op();
    std::vector<double> wrong_per_gpu;
    const CheckResult check = check_lanes(s, lanes, p, what, wrong_per_gpu);
    // Every rank's record carries the total: a rank whose own outputs are right fails too.
    const auto wrong = wrong_across_ranks(group.all_gather(wrong_per_gpu));

    Outcome out;
    const LocalGroup &first = lanes.front().group;
    // Concurrent: the iteration (every type) has a time, not one busbw; each type has both.
    out.metrics =
        concurrent ? result.to_json() : collective_metrics(result, kind_, p.size_bytes, first.size);
    if (concurrent)
      out.metrics[record::kByGroupType] =
          by_group_type_metrics(group, group_type_times(s, by_type, lanes, p), kind_, p.size_bytes,
                                p.iterations, s.rank(0));
    out.metrics[record::kTelemetry] = telemetry_json;
    out.metrics[record::kWrongElementsThisProcess] = check.wrong;
    add_wrong_elements(out.metrics, wrong);
    add_nccl_identity(out.metrics);
    const double link = point.real(record::kLinkGbytesPerS);
    if (link > 0 && !concurrent && out.metrics[record::kBusbwGbytesPerS].get<double>() > link) {
      out.metrics[record::kAboveLinkRate] = true;
      out.metrics[record::kNote] = kAboveLinkRateNote;
    }
    add_gate_timeouts(out.metrics, timer.gates().timed_out());
    // Concurrent: several groups, no one type, index or host count (as MPI records it).
    add_group_params(out.derived_params,
                     {"nccl", s.nranks(), concurrent ? "concurrent" : first.type, first.index,
                      first.size, concurrent ? 0 : first.hosts});
    // The model calibrate keeps apart (two GPU SKUs are never fitted together unasked).
    out.derived_params[record::kGpuName] = gpu::cuda_device_info(s.device(0)).name;
    if (kind_ == Kind::alltoall) // the call, which nccl-tests' alltoall also chooses by version
      out.derived_params[record::kAlltoallCall] =
          alltoall_call ? "ncclAlltoAll" : "grouped ncclSend/ncclRecv";
    std::vector<std::string> problems;
    if (auto why = wrong_problem(wrong, check))
      problems.push_back(*why);
    out.conclude_data_check(problems);
    return out;
  }

private:
  // One iteration: each type is one NCCL group over the local GPUs, enqueued in the same order
  // on every rank. A concurrent point forks every other type's stream from the session's stream
  // at the iteration's start and joins it back at its end, so that the iteration's events and
  // the session's watchdog wait cover every type.
  void enqueue_iteration(NcclSession &s, std::vector<Lane> &lanes,
                         const std::vector<std::unique_ptr<gpu::Event>> &fork, std::size_t types,
                         const CollectivePoint &p, bool alltoall_call) {
    const bool concurrent = types > 1;
    if (concurrent)
      for (std::size_t i = 0; i < s.local_count(); ++i) {
        gpu::DeviceGuard guard(s.device(i));
        RAILGAUGE_CUDA_CALL(cudaEventRecord(fork[i]->get(), s.stream(i)));
        for (std::size_t t = 1; t < types; ++t)
          RAILGAUGE_CUDA_CALL(
              cudaStreamWaitEvent(lanes[t * s.local_count() + i].stream, fork[i]->get(), 0));
      }
    for (std::size_t t = 0; t < types; ++t)
      enqueue_group(std::span(lanes).subspan(t * s.local_count(), s.local_count()), p,
                    alltoall_call);
    if (concurrent)
      for (auto &l : lanes) {
        gpu::DeviceGuard guard(l.device);
        RAILGAUGE_CUDA_CALL(cudaEventRecord(l.end->get(), l.stream));
        if (l.stream != s.stream(l.gpu))
          RAILGAUGE_CUDA_CALL(cudaStreamWaitEvent(s.stream(l.gpu), l.end->get(), 0));
      }
  }

  // One NCCL group: every local GPU's collective of one group type.
  void enqueue_group(std::span<Lane> lanes, const CollectivePoint &p, bool alltoall_call) {
    const auto type = nccl_type(p.dtype);
    const auto op = nccl_op(p.op);
    const std::size_t elt = element_bytes(p.dtype);
    NcclGroup group;
    for (Lane &b : lanes) {
      const Counts &c = b.c;
      const int n = b.group.size;
      auto *recv = static_cast<std::byte *>(b.recv->get());
      const std::byte *send = p.in_place ? recv : static_cast<const std::byte *>(b.send->get());
      ncclComm_t comm = b.group.comm;
      cudaStream_t st = b.stream;
      const std::size_t block = c.count * elt;
      switch (kind_) {
      case Kind::all_reduce:
        check_nccl(ncclAllReduce(send, recv, c.count, type, op, comm, st), "ncclAllReduce");
        break;
      case Kind::all_gather:
        if (p.in_place)
          send = recv + static_cast<std::size_t>(b.group.rank) * block;
        check_nccl(ncclAllGather(send, recv, c.count, type, comm, st), "ncclAllGather");
        break;
      case Kind::reduce_scatter: {
        std::byte *out = p.in_place ? recv + static_cast<std::size_t>(b.group.rank) * block : recv;
        check_nccl(ncclReduceScatter(send, out, c.count, type, op, comm, st), "ncclReduceScatter");
        break;
      }
      case Kind::alltoall: // as nccl-tests: ncclAlltoAll where NCCL has it, else grouped
                           // send/recv with every peer
        if (alltoall_call) {
#if NCCL_VERSION_CODE >= NCCL_VERSION(2, 28, 0)
          check_nccl(ncclAlltoAll(send, recv, c.count, type, comm, st), "ncclAlltoAll");
#endif
          break;
        }
        for (int peer = 0; peer < n; ++peer) {
          check_nccl(ncclSend(send + static_cast<std::size_t>(peer) * block, c.count, type, peer,
                              comm, st),
                     "ncclSend");
          check_nccl(ncclRecv(recv + static_cast<std::size_t>(peer) * block, c.count, type, peer,
                              comm, st),
                     "ncclRecv");
        }
        break;
      case Kind::broadcast:
        check_nccl(ncclBroadcast(send, recv, c.count, type, p.root, comm, st), "ncclBroadcast");
        break;
      case Kind::reduce:
        check_nccl(ncclReduce(send, recv, c.count, type, op, p.root, comm, st), "ncclReduce");
        break;
      case Kind::sendrecv:
        check_nccl(ncclSend(send, c.count, type, (b.group.rank + 1) % n, comm, st), "ncclSend");
        check_nccl(ncclRecv(recv, c.count, type, (b.group.rank - 1 + n) % n, comm, st), "ncclRecv");
        break;
      }
    }
    group.end();
  }
};

} // namespace

std::unique_ptr<Benchmark> make_nccl_collective(Kind kind) {
  return std::make_unique<NcclCollective>(kind);
}

} // namespace railgauge::collectives
