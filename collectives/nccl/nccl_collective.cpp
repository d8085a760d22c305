#include "collectives/nccl/nccl_collective.h"

#include <cstring>

#include <fmt/format.h>

#include "collectives/collective_point.h"
#include "collectives/collective_record.h"
#include "collectives/groups.h"
#include "collectives/nccl/nccl_group.h"
#include "collectives/nccl/nccl_point.h"
#include "collectives/wrong_elements.h"
#include "harness/cuda/check.h"
#include "harness/cuda/device.h"
#include "harness/cuda/resources.h"
#include "harness/run_context.h"

namespace railgauge::collectives {
namespace {

constexpr std::uint64_t kSeed = 2027;

// One local GPU's buffers, laid out as nccl-tests lays them: in place, all_gather sends from
// recv + rank * count and reduce_scatter receives at send + rank * count.
struct DeviceBuffers {
  int device = 0;
  ncclComm_t comm = nullptr; // the world's, or the device's group's
  int rank = 0;              // in that communicator
  std::unique_ptr<gpu::DeviceBuffer> send, recv;
};

// collectives.nccl_<kind>: NCCL's collective on device memory, timed with CUDA events per
// iteration, on the world or on the groups of one group type (ncclCommSplit by colour).
class NcclCollective final : public Benchmark {
public:
  explicit NcclCollective(Kind kind)
      : kind_(kind), key_(record::keys_of(kind).nccl),
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
    if (auto why = nccl_point_problem(ctx, read_point(kind_, point)))
      return why;
    // NCCL's CUDA-graph guide: with several GPUs per process, cudaGraphLaunch of one GPU's graph
    // may block until the others' are launched, and one thread launches them in turn.
    if (point.text("cuda_graph") == "on" && ctx.world_size() <= 1 && gpu::cuda_device_count() > 1)
      return "cuda_graph=on needs one process per GPU (srun or mpirun): one process driving "
             "several GPUs may deadlock in cudaGraphLaunch (NCCL's CUDA-graph documentation)";
    return std::nullopt;
  }

  Outcome run(RunContext &ctx, const Point &point) override {
    const auto p = read_point(kind_, point);
    NcclSession &s = open_nccl_session(session_, ctx, key_, p.timeout_s);
    const auto groups = local_groups(s, p, session_.rank_hosts);
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
    GraphsOfPoint graphs(s);
    DrainOnFailure drain_on_failure(s, p.timeout_s);
    auto fill = [&] {
      for (std::size_t i = 0; i < bufs.size(); ++i) {
        auto &b = bufs[i];
        std::vector<std::byte> host(std::max(c.send_elems, c.recv_elems) * elt);
        std::memset(host.data(), 0xff, host.size());
        upload(s, i, b.recv->get(), host.data(), b.recv->bytes());
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
        upload(s, i, dst, host.data(), elems * elt);
      }
    };
    const Operation enqueue = [&] { enqueue_all(s, bufs, p, c, n); };
    fill();

    const std::string what = fmt::format("{} of {} bytes", to_string(kind_), p.size_bytes);
    NcclIterationTimer timer(s, what, p.timeout_s);
    NcclLockstepGroup group(ctx, timer, fmt::format("lockstep/{}/{}", key_, point.label()),
                            p.timeout_s);
    LockstepSpec spec;
    spec.warmup = p.warmup;
    spec.iterations = p.iterations;

    Operation op = enqueue;
    if (point.text("cuda_graph") == "on") {
      // Capture one iteration on every local stream, then replay it.
      s.capture_graphs(enqueue);
      op = [&] { s.launch_graphs(); };
    }

    auto result = run_lockstep(group, timer, spec, op);
    group.name_slowest_gpu(result, p.iterations);

    fill();
    op();
    timer.drain();
    CheckResult check;
    std::vector<double> wrong_per_gpu; // in world-rank order: this process's ranks are consecutive
    for (auto &b : bufs) {
      const auto one = check_one(b, p, c, n);
      wrong_per_gpu.push_back(static_cast<double>(one.wrong));
      check.add(one);
    }
    // Every rank's record carries the total: a rank whose own outputs are right fails too.
    const auto wrong = wrong_across_ranks(group.all_gather(wrong_per_gpu));

    Outcome out;
    out.metrics = collective_metrics(result, kind_, p.size_bytes, n);
    out.metrics["wrong_elements_this_process"] = check.wrong;
    add_wrong_elements(out.metrics, wrong);
    add_nccl_identity(out.metrics);
    const double link = point.real("link_gbytes_per_s");
    if (link > 0 && out.metrics["busbw_gbytes_per_s"].get<double>() > link) {
      out.metrics["above_link_rate"] = true;
      out.metrics["note"] = "busbw exceeds the link rate: NCCL reduced in the switch (NVLS or "
                            "SHARP/CollNet), so the busbw factor overstates the bytes on a link";
    }
    add_gate_timeouts(out.metrics, timer.gates().timed_out());
    add_group_params(out.derived_params, {"nccl", s.nranks(), groups.front().type,
                                          groups.front().index, n, groups.front().hosts});
    std::vector<std::string> problems;
    if (auto why = wrong_problem(wrong, check))
      problems.push_back(*why);
    out.conclude_data_check(problems);
    return out;
  }

private:
  void enqueue_all(NcclSession &s, std::vector<DeviceBuffers> &bufs, const CollectivePoint &p,
                   const Counts &c, int n) {
    const auto type = nccl_type(p.dtype);
    const auto op = nccl_op(p.op);
    const std::size_t elt = element_bytes(p.dtype);
    NcclGroup group;
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
    group.end();
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
  NcclSessionSlot session_;
};

} // namespace

std::unique_ptr<Benchmark> make_nccl_collective(Kind kind) {
  return std::make_unique<NcclCollective>(kind);
}

} // namespace railgauge::collectives
