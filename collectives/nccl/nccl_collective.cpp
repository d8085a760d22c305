#include "collectives/nccl/nccl_collective.h"

#include <cstdlib>
#include <cstring>

#include <fmt/format.h>

#include "collectives/collective_point.h"
#include "collectives/groups.h"
#include "collectives/nccl/nccl_session.h"
#include "harness/cuda/check.h"
#include "harness/cuda/device.h"
#include "harness/cuda/resources.h"
#include "harness/run_context.h"

namespace railgauge::collectives {
namespace {

constexpr std::uint64_t kSeed = 2027;

std::optional<std::string> env_value(const char *name) {
  if (const char *v = std::getenv(name))
    return std::string(v);
  return std::nullopt;
}

// One local GPU's buffers, laid out as nccl-tests lays them: in place, all_gather sends from
// recv + rank * count and reduce_scatter receives at send + rank * count.
struct DeviceBuffers {
  int device = 0;
  ncclComm_t comm = nullptr; // the world's, or the device's group's
  int rank = 0;              // in that communicator
  std::unique_ptr<gpu::DeviceBuffer> send, recv;
};

// Where one local device's collective runs: the world, or its group of the point's group type.
struct LocalGroup {
  ncclComm_t comm = nullptr;
  int rank = 0, size = 1, index = 0;
  std::string type = "world";
};

std::vector<LocalGroup> local_groups(NcclSession &s, const CollectivePoint &p) {
  std::vector<LocalGroup> out(s.local_count());
  if (p.groups == "world" || p.group_type == "world") {
    for (std::size_t i = 0; i < out.size(); ++i)
      out[i] = {s.comm(i), s.rank(i), s.nranks(), 0, "world"};
    return out;
  }
  const auto layout = parse_group_layout(p.groups, s.nranks(), "axis groups");
  const std::string type = group_types_of(p, layout).front();
  std::vector<Group> groups;
  std::vector<int> colours, keys;
  for (std::size_t i = 0; i < out.size(); ++i) {
    groups.push_back(group_of(layout, type, s.rank(i)));
    colours.push_back(groups.back().index);
    keys.push_back(groups.back().rank_in_group);
  }
  const auto &comms = s.split(p.groups + "/" + type, colours, keys, p.timeout_s);
  for (std::size_t i = 0; i < out.size(); ++i)
    out[i] = {comms[i], groups[i].rank_in_group, static_cast<int>(groups[i].members.size()),
              groups[i].index, type};
  return out;
}

// CUDA events around each iteration's enqueue on every local stream, then the watchdog wait;
// an iteration's time is the slowest local GPU's, and each GPU's time is kept so that a single
// process driving every GPU can name the slowest one.
class NcclIterationTimer final : public IterationTimer {
public:
  NcclIterationTimer(NcclSession &s, std::string what, double timeout_s)
      : s_(s), what_(std::move(what)), timeout_s_(timeout_s), per_gpu_(s.local_count()) {
    for (std::size_t i = 0; i < s.local_count(); ++i) {
      gpu::DeviceGuard guard(s.device(i));
      start_.emplace_back();
      stop_.emplace_back();
    }
  }
  std::string_view name() const override { return "cuda_event"; }
  double time_one_s(const Operation &op) override {
    for (std::size_t i = 0; i < s_.local_count(); ++i)
      RAILGAUGE_CUDA_CALL(cudaEventRecord(start_[i].get(), s_.stream(i)));
    op();
    for (std::size_t i = 0; i < s_.local_count(); ++i)
      RAILGAUGE_CUDA_CALL(cudaEventRecord(stop_[i].get(), s_.stream(i)));
    s_.wait(what_, timeout_s_);
    double worst = 0;
    for (std::size_t i = 0; i < s_.local_count(); ++i) {
      float ms = 0;
      RAILGAUGE_CUDA_CALL(cudaEventElapsedTime(&ms, start_[i].get(), stop_[i].get()));
      per_gpu_[i].push_back(ms * 1e-3);
      worst = std::max(worst, ms * 1e-3);
    }
    return worst;
  }
  double time_back_to_back_s(const Operation &op, int n) override {
    const auto t0 = std::chrono::steady_clock::now();
    for (int i = 0; i < n; ++i)
      op();
    s_.wait(what_, timeout_s_);
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  }
  const std::vector<std::vector<double>> &per_gpu() const { return per_gpu_; }
  void drain() { s_.wait(what_, timeout_s_); }

private:
  NcclSession &s_;
  std::string what_;
  double timeout_s_;
  std::vector<gpu::Event> start_, stop_;
  std::vector<std::vector<double>> per_gpu_;
};

// The lockstep group: in one process, the local GPUs (a barrier drains their streams); across
// processes, the run's Store, after draining.
class NcclLockstepGroup final : public LockstepGroup {
public:
  NcclLockstepGroup(NcclIterationTimer &timer, LockstepGroup *across)
      : timer_(timer), across_(across) {}
  int rank() const override { return across_ ? across_->rank() : 0; }
  int size() const override { return across_ ? across_->size() : 1; }
  void barrier() override {
    timer_.drain();
    if (across_)
      across_->barrier();
  }
  std::vector<double> all_gather(const std::vector<double> &mine) override {
    return across_ ? across_->all_gather(mine) : mine;
  }

private:
  NcclIterationTimer &timer_;
  LockstepGroup *across_;
};

// collectives.nccl_<kind>: NCCL's collective on device memory, timed with CUDA events per
// iteration, on the world or on the groups of one group type (ncclCommSplit by colour).
class NcclCollective final : public Benchmark {
public:
  explicit NcclCollective(Kind kind)
      : kind_(kind), key_(fmt::format("collectives.nccl_{}", to_string(kind))),
        description_(fmt::format("NCCL {} on GPU memory: per-iteration CUDA-event time (max over "
                                 "ranks), algbw and busbw (GB/s), slowest rank, data checked",
                                 to_string(kind))) {}
  std::string_view key() const override { return key_; }
  std::string_view description() const override { return description_; }
  std::vector<Axis> axes() const override {
    auto axes = collective_axes(kind_, false);
    axes.push_back({"cuda_graph",
                    AxisType::text,
                    "off: enqueue each iteration; on: replay a captured CUDA graph",
                    {std::string("off")},
                    {"off", "on"}});
    axes.push_back({"link_gbytes_per_s",
                    AxisType::real,
                    "per-direction link rate; busbw above it is flagged (NVLS/SHARP reduce in "
                    "the switch); 0: not checked",
                    {0.0},
                    {}});
    return axes;
  }

  std::optional<std::string> supported(const RunContext &ctx, const Point &point) const override {
    if (auto why = gpu::cuda_unavailable_reason())
      return "no usable CUDA device: " + *why;
    const auto p = read_point(kind_, point);
    if (p.group_type == "concurrent")
      return "NCCL runs one group type at a time: concurrent groups would share each GPU's "
             "stream and run one after another (give group_type one axis of `groups`)";
    if (p.groups == "world" && p.group_type != "world")
      return "group_type needs a `groups` split (e.g. -a groups=tp=2+dp=rest)";
    const int world = ctx.world_size() > 1 ? ctx.world_size() : gpu::cuda_device_count();
    if (ctx.world_size() > 1 && !ctx.store())
      return "a multi-rank NCCL run needs the run's store (launch under srun or mpirun)";
    const int ranks = group_size_for(p, world);
    // A single-rank communicator is allowed: it is what nccl-tests measures on one GPU.
    if (auto why = point_problem(p, std::max(ranks, 2)); why && ranks >= 2)
      return why;
    if (!counts_for(kind_, p.size_bytes, element_bytes(p.dtype), ranks))
      return fmt::format("{} bytes do not split into whole elements for {} ranks", p.size_bytes,
                         ranks);
    return std::nullopt;
  }

  Outcome run(RunContext &ctx, const Point &point) override {
    const auto p = read_point(kind_, point);
    NcclSession &s = session(ctx, p);
    const auto groups = local_groups(s, p);
    const int n = groups.front().size; // every group of a type has the axis's size
    const std::size_t elt = element_bytes(p.dtype);
    const auto c = *counts_for(kind_, p.size_bytes, elt, n);
    std::vector<DeviceBuffers> bufs(s.local_count());
    for (std::size_t i = 0; i < s.local_count(); ++i) {
      gpu::DeviceGuard guard(s.device(i));
      bufs[i].device = s.device(i);
      bufs[i].comm = groups[i].comm;
      bufs[i].rank = groups[i].rank;
      const std::size_t big = std::max(c.send_elems, c.recv_elems) * elt;
      bufs[i].recv = std::make_unique<gpu::DeviceBuffer>(p.in_place ? big : c.recv_elems * elt);
      if (!p.in_place)
        bufs[i].send = std::make_unique<gpu::DeviceBuffer>(c.send_elems * elt);
    }
    auto fill = [&] {
      for (auto &b : bufs) {
        std::vector<std::byte> host(std::max(c.send_elems, c.recv_elems) * elt);
        std::memset(host.data(), 0xff, host.size());
        gpu::DeviceGuard guard(b.device);
        RAILGAUGE_CUDA_CALL(
            cudaMemcpy(b.recv->get(), host.data(), b.recv->bytes(), cudaMemcpyHostToDevice));
        std::uint64_t first = 0, elems = c.send_elems;
        std::size_t at = 0;
        if (kind_ == Kind::all_gather) {
          first = static_cast<std::uint64_t>(b.rank) * c.count;
          if (p.in_place)
            at = static_cast<std::size_t>(first) * elt;
        }
        if (kind_ == Kind::broadcast && b.rank != p.root)
          continue;
        fill_input(p.dtype, p.op, kSeed, b.rank, n, first, host.data(), elems);
        void *dst = p.in_place ? static_cast<std::byte *>(b.recv->get()) + at : b.send->get();
        RAILGAUGE_CUDA_CALL(cudaMemcpy(dst, host.data(), elems * elt, cudaMemcpyHostToDevice));
      }
    };
    const Operation enqueue = [&] { enqueue_all(s, bufs, p, c, n); };
    fill();

    const std::string what = fmt::format("{} of {} bytes", to_string(kind_), p.size_bytes);
    NcclIterationTimer timer(s, what, p.timeout_s);
    std::unique_ptr<StoreLockstepGroup> across;
    if (ctx.world_size() > 1)
      across = std::make_unique<StoreLockstepGroup>(
          *ctx.store(), fmt::format("lockstep/{}/{}", key_, point.label()), ctx.rank(),
          ctx.world_size(), std::chrono::milliseconds(static_cast<long>(p.timeout_s * 1000)));
    NcclLockstepGroup group(timer, across.get());
    LockstepSpec spec;
    spec.warmup = p.warmup;
    spec.iterations = p.iterations;

    Operation op = enqueue;
    std::vector<cudaGraphExec_t> graphs;
    if (point.text("cuda_graph") == "on") {
      // Capture one iteration on every local stream, then replay it.
      for (std::size_t i = 0; i < s.local_count(); ++i)
        RAILGAUGE_CUDA_CALL(cudaStreamBeginCapture(s.stream(i), cudaStreamCaptureModeRelaxed));
      enqueue();
      for (std::size_t i = 0; i < s.local_count(); ++i) {
        cudaGraph_t g = nullptr;
        RAILGAUGE_CUDA_CALL(cudaStreamEndCapture(s.stream(i), &g));
        cudaGraphExec_t e = nullptr;
        RAILGAUGE_CUDA_CALL(cudaGraphInstantiate(&e, g, 0));
        RAILGAUGE_CUDA_CALL(cudaGraphDestroy(g));
        graphs.push_back(e);
      }
      op = [&] {
        for (std::size_t i = 0; i < s.local_count(); ++i)
          RAILGAUGE_CUDA_CALL(cudaGraphLaunch(graphs[i], s.stream(i)));
      };
    }
    struct GraphsGuard {
      std::vector<cudaGraphExec_t> &g;
      ~GraphsGuard() {
        for (auto e : g)
          RAILGAUGE_CUDA_CALL_NOEXCEPT(cudaGraphExecDestroy(e));
      }
    } graphs_guard{graphs};

    auto result = run_lockstep(group, timer, spec, op);
    if (!across && s.local_count() > 1) {
      // One process, several GPUs: name the slowest GPU from the per-GPU event times.
      std::vector<std::vector<double>> timed;
      for (const auto &row : timer.per_gpu())
        timed.emplace_back(row.end() - p.iterations, row.end());
      const auto per_gpu = summarize_lockstep(timed, {}, 0);
      result.slowest_rank = per_gpu.slowest_rank;
      result.slowest_share = per_gpu.slowest_share;
      result.ranks = static_cast<int>(s.local_count());
    }

    fill();
    op();
    timer.drain();
    CheckResult check;
    for (auto &b : bufs)
      check.add(check_one(b, p, c, n));

    Outcome out;
    out.metrics = collective_metrics(result, kind_, p.size_bytes, n);
    out.metrics["wrong_elements_this_process"] = check.wrong;
    out.metrics["nccl_version"] = nccl_version_string();
    for (const char *var : {"NCCL_ALGO", "NCCL_PROTO", "NCCL_NVLS_ENABLE", "NCCL_COLLNET_ENABLE"})
      if (auto v = env_value(var))
        out.metrics[std::string("env_") + var] = *v;
    const double link = point.real("link_gbytes_per_s");
    if (link > 0 && out.metrics["busbw_gbytes_per_s"].get<double>() > link) {
      out.metrics["above_link_rate"] = true;
      out.metrics["note"] = "busbw exceeds the link rate: NCCL reduced in the switch (NVLS or "
                            "SHARP/CollNet), so the busbw factor overstates the bytes on a link";
    }
    out.derived_params["world_size"] = s.nranks();
    out.derived_params["backend"] = "nccl";
    out.derived_params["group_type"] = groups.front().type;
    out.derived_params["group_index"] = groups.front().index;
    out.derived_params["group_size"] = n;
    std::vector<std::string> problems;
    if (check.wrong)
      problems.push_back(check.describe("this process's outputs"));
    out.conclude_data_check(problems);
    return out;
  }

private:
  NcclSession &session(const RunContext &ctx, const CollectivePoint &p) {
    if (!session_) {
      if (ctx.world_size() > 1) {
        const int device = ctx.rank() % std::max(1, gpu::cuda_device_count());
        session_ = std::make_unique<NcclSession>(
            *ctx.store(), key_, ctx.rank(), ctx.world_size(), device,
            std::chrono::milliseconds(static_cast<long>(p.timeout_s * 1000)));
      } else {
        std::vector<int> devices;
        for (int d = 0; d < gpu::cuda_device_count(); ++d)
          devices.push_back(d);
        session_ = std::make_unique<NcclSession>(devices);
      }
    }
    return *session_;
  }

  void enqueue_all(NcclSession &s, std::vector<DeviceBuffers> &bufs, const CollectivePoint &p,
                   const Counts &c, int n) {
    const auto type = nccl_type(p.dtype);
    const auto op = nccl_op(p.op);
    const std::size_t elt = element_bytes(p.dtype);
    check_nccl(ncclGroupStart(), "ncclGroupStart");
    for (std::size_t i = 0; i < bufs.size(); ++i) {
      auto &b = bufs[i];
      auto *recv = static_cast<std::byte *>(b.recv->get());
      const std::byte *send = p.in_place ? recv : static_cast<const std::byte *>(b.send->get());
      ncclComm_t comm = b.comm;
      cudaStream_t st = s.stream(i);
      const std::size_t block = c.count * elt;
      switch (kind_) {
      case Kind::all_reduce:
        check_nccl(ncclAllReduce(send, recv, c.count, type, op, comm, st), "ncclAllReduce");
        break;
      case Kind::all_gather:
        if (p.in_place)
          send = recv + static_cast<std::size_t>(b.rank) * block;
        check_nccl(ncclAllGather(send, recv, c.count, type, comm, st), "ncclAllGather");
        break;
      case Kind::reduce_scatter: {
        std::byte *out = p.in_place ? recv + static_cast<std::size_t>(b.rank) * block : recv;
        check_nccl(ncclReduceScatter(send, out, c.count, type, op, comm, st), "ncclReduceScatter");
        break;
      }
      case Kind::alltoall: // as nccl-tests: grouped send/recv with every peer
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
        check_nccl(ncclSend(send, c.count, type, (b.rank + 1) % n, comm, st), "ncclSend");
        check_nccl(ncclRecv(recv, c.count, type, (b.rank - 1 + n) % n, comm, st), "ncclRecv");
        break;
      }
    }
    check_nccl(ncclGroupEnd(), "ncclGroupEnd");
  }

  CheckResult check_one(DeviceBuffers &b, const CollectivePoint &p, const Counts &c, int n) {
    gpu::DeviceGuard guard(b.device);
    std::vector<std::byte> host(b.recv->bytes());
    RAILGAUGE_CUDA_CALL(
        cudaMemcpy(host.data(), b.recv->get(), host.size(), cudaMemcpyDeviceToHost));
    const DType t = p.dtype;
    const RedOp op = p.op;
    const int r = b.rank;
    const std::uint64_t count = c.count;
    const auto reduced = [&](std::uint64_t i) { return reduced_value(t, op, kSeed, n, i); };
    switch (kind_) {
    case Kind::all_reduce:
      return check_elements(t, host.data(), count, 0, reduced);
    case Kind::reduce:
      return r == p.root ? check_elements(t, host.data(), count, 0, reduced) : CheckResult{};
    case Kind::reduce_scatter: {
      const std::size_t at =
          p.in_place ? static_cast<std::size_t>(r) * count * element_bytes(t) : 0;
      return check_elements(t, host.data() + at, count, static_cast<std::uint64_t>(r) * count,
                            reduced);
    }
    case Kind::all_gather:
      return check_elements(t, host.data(), count * static_cast<std::uint64_t>(n), 0,
                            [&](std::uint64_t j) {
                              return input_value(t, op, kSeed, static_cast<int>(j / count), n, j);
                            });
    case Kind::alltoall:
      return check_elements(t, host.data(), count * static_cast<std::uint64_t>(n), 0,
                            [&](std::uint64_t k) {
                              return input_value(t, op, kSeed, static_cast<int>(k / count), n,
                                                 static_cast<std::uint64_t>(r) * count + k % count);
                            });
    case Kind::broadcast:
      return check_elements(t, host.data(), count, 0, [&](std::uint64_t i) {
        return input_value(t, op, kSeed, p.root, n, i);
      });
    case Kind::sendrecv:
      return check_elements(t, host.data(), count, 0, [&](std::uint64_t i) {
        return input_value(t, op, kSeed, (r - 1 + n) % n, n, i);
      });
    }
    return {};
  }

  Kind kind_;
  std::string key_, description_;
  std::unique_ptr<NcclSession> session_;
};

} // namespace

std::unique_ptr<Benchmark> make_nccl_collective(Kind kind) {
  return std::make_unique<NcclCollective>(kind);
}

} // namespace railgauge::collectives
