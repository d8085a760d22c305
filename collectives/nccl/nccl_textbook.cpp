#include <exception>
#include <functional>
#include <thread>

#include <fmt/format.h>

#include "collectives/data_regions.h"
#include "collectives/nccl/device_data_check.h"
#include "collectives/nccl/nccl_collective.h"
#include "collectives/nccl/nccl_group.h"
#include "collectives/nccl/nccl_point.h"
#include "collectives/nccl/nccl_transport.h"
#include "collectives/wrong_elements.h"
#include "harness/cuda/check.h"
#include "harness/cuda/device.h"
#include "harness/inventory/gpu_telemetry.h"
#include "harness/run_context.h"
#include "records/collective_record.h"

namespace railgauge::collectives {
namespace {

constexpr std::uint64_t kNcclTextbookSeed = 2029;

// Runs job(i) for every local device i at once and returns when all have finished, rethrowing
// the first failure. Each device needs its own host thread: an algorithm's NCCL calls on one
// device wait, at connection setup, for the peer's matching calls, which a single thread
// driving every device in turn would never make. One device runs on the calling thread.
void on_every_device(std::size_t devices, const std::function<void(std::size_t)> &job) {
  if (devices == 1)
    return job(0);
  std::vector<std::exception_ptr> errors(devices);
  std::vector<std::thread> threads;
  for (std::size_t i = 0; i < devices; ++i)
    threads.emplace_back([&, i] {
      try {
        job(i);
      } catch (...) {
        errors[i] = std::current_exception();
      }
    });
  for (auto &t : threads)
    t.join();
  for (auto &e : errors)
    if (e)
      std::rethrow_exception(e);
}

// One local device's in-place buffer (textbook.h layout) and the transport over its group.
struct DeviceSide {
  LocalGroup group;
  int device = 0;
  std::unique_ptr<gpu::DeviceBuffer> buf;
  std::unique_ptr<NcclTransport> transport;
};

// collectives.nccl_textbook_<kind>: a textbook algorithm (textbook.h) over ncclSend/ncclRecv on
// device memory, and in the same point, on the same GPUs and sizes, NCCL's own in-place
// collective; the record holds both and their time ratio, each timed with CUDA events per
// iteration in lockstep.
class NcclTextbook final : public NcclKindBenchmark {
public:
  explicit NcclTextbook(Kind kind)
      : NcclKindBenchmark(kind, record::keys_of(kind).nccl_textbook,
                          textbook_description(kind, "NCCL", "GPU")) {}

  std::vector<Axis> axes() const override { return collective_axes(kind_, true); }

  std::optional<std::string> supported(const RunContext &ctx, const Point &point) const override {
    const auto p = read_point(kind_, point);
    if (auto why = nccl_point_problem(ctx, p))
      return why;
    const int world = ctx.world_size() > 1 ? ctx.world_size() : gpu::cuda_device_count();
    if (group_size_for(p, world) < 2)
      return "a textbook algorithm needs >= 2 GPUs in its group: one process per GPU under srun "
             "or mpirun, or one process on a node with several GPUs";
    return std::nullopt;
  }

  Outcome run(RunContext &ctx, const Point &point) override {
    auto p = read_point(kind_, point);
    p.in_place = true; // the algorithms work in place; so does the library call beside them
    NcclSession &s = open_session(ctx, p.timeout_s);
    const auto groups = local_groups(s, p, session_.rank_hosts);
    const int n = groups.front().size;
    const std::size_t elt = element_bytes(p.dtype);
    const std::size_t count = counts_for(kind_, p.size_bytes, elt, n)->count;
    const std::size_t bytes = textbook_elements(kind_, count, n) * elt;
    std::vector<DeviceSide> sides(s.local_count());
    for (std::size_t i = 0; i < sides.size(); ++i) {
      gpu::DeviceGuard guard(s.device(i));
      sides[i].group = groups[i];
      sides[i].device = s.device(i);
      sides[i].buf = std::make_unique<gpu::DeviceBuffer>(bytes);
      sides[i].transport = std::make_unique<NcclTransport>(groups[i].comm, groups[i].rank, n,
                                                           s.device(i), s.stream(i), bytes);
    }
    DrainOnFailure drain_on_failure(s, p.timeout_s);
    const auto fill = [&] {
      for (std::size_t i = 0; i < sides.size(); ++i) {
        void *buf = sides[i].buf->get();
        seed_on_device(
            sides[i].device, s.stream(i), p.dtype, p.op, kNcclTextbookSeed, sides[i].group.rank, n,
            textbook_input_region(kind_, sides[i].group.rank, n, count), buf, buf, bytes);
      }
    };
    const Algorithm algorithm = *p.algorithm;
    const Operation textbook = [&] {
      on_every_device(sides.size(), [&](std::size_t i) {
        run_textbook(algorithm, kind_, *sides[i].transport,
                     static_cast<std::byte *>(sides[i].buf->get()), count, p.dtype, p.op);
      });
    };

    NcclIterationTimer timer(s,
                             fmt::format("textbook {} {} of {} bytes", to_string(algorithm),
                                         to_string(kind_), p.size_bytes),
                             p.timeout_s);
    NcclLockstepGroup group(ctx, timer, fmt::format("lockstep/{}/{}", key(), point.label()),
                            p.timeout_s);
    LockstepSpec spec;
    spec.warmup = p.warmup;
    spec.iterations = p.iterations;
    fill();
    GpuTelemetryWindows telemetry(s.uuids()); // this process's GPUs, both timed loops
    auto mine = run_lockstep(group, timer, spec, textbook);
    group.name_slowest_gpu(mine, p.iterations);

    fill();
    textbook();
    DeviceDataCheck checks;
    for (std::size_t i = 0; i < sides.size(); ++i)
      checks.enqueue(sides[i].device, s.stream(i), sides[i].buf->get(),
                     textbook_output_region(p, kNcclTextbookSeed, sides[i].group.rank, n, count));
    s.wait("the data check of the textbook algorithm", p.timeout_s);
    CheckResult check;
    std::vector<double> wrong_per_gpu; // in world-rank order: this process's ranks are consecutive
    for (const auto &one : checks.results()) {
      wrong_per_gpu.push_back(static_cast<double>(one.wrong));
      check.add(one);
    }
    // Every rank's record carries the total: a rank whose own outputs are right fails too.
    const auto wrong = wrong_across_ranks(group.all_gather(wrong_per_gpu));

    // NCCL's own collective, same GPUs, sizes and layout, in place.
    const Operation library = [&] { enqueue_library(s, sides, p, count); };
    fill();
    auto theirs = run_lockstep(group, timer, spec, library);
    group.name_slowest_gpu(theirs, p.iterations);

    Outcome out;
    out.metrics = textbook_metrics(mine, theirs, kind_, p.size_bytes, n);
    out.metrics[record::kTelemetry] = telemetry.finish();
    out.metrics[record::kWrongElementsThisProcess] = check.wrong;
    add_wrong_elements(out.metrics, wrong);
    add_nccl_identity(out.metrics);
    add_gate_timeouts(out.metrics, timer.gates().timed_out());
    add_group_params(out.derived_params, {"nccl", s.nranks(), groups.front().type,
                                          groups.front().index, n, groups.front().hosts});
    out.derived_params[record::kInPlace] = "in_place";
    std::vector<std::string> problems;
    if (auto why = wrong_problem(wrong, check))
      problems.push_back(fmt::format("{} {}: {}", to_string(algorithm), to_string(kind_), *why));
    out.conclude_data_check(problems);
    return out;
  }

private:
  void enqueue_library(NcclSession &s, std::vector<DeviceSide> &sides, const CollectivePoint &p,
                       std::size_t count) {
    const auto type = nccl_type(p.dtype);
    const auto op = nccl_op(p.op);
    const std::size_t block = count * element_bytes(p.dtype);
    NcclGroup calls;
    for (std::size_t i = 0; i < sides.size(); ++i) {
      auto *buf = static_cast<std::byte *>(sides[i].buf->get());
      std::byte *mine = buf + static_cast<std::size_t>(sides[i].group.rank) * block;
      ncclComm_t comm = sides[i].group.comm;
      cudaStream_t st = s.stream(i);
      switch (kind_) {
      case Kind::all_reduce:
        check_nccl(ncclAllReduce(buf, buf, count, type, op, comm, st), "ncclAllReduce");
        break;
      case Kind::all_gather:
        check_nccl(ncclAllGather(mine, buf, count, type, comm, st), "ncclAllGather");
        break;
      case Kind::reduce_scatter:
        check_nccl(ncclReduceScatter(buf, mine, count, type, op, comm, st), "ncclReduceScatter");
        break;
      default:
        throw std::invalid_argument(fmt::format("no textbook {}", to_string(kind_)));
      }
    }
    calls.end();
  }
};

} // namespace

std::unique_ptr<Benchmark> make_nccl_textbook(Kind kind) {
  return std::make_unique<NcclTextbook>(kind);
}

} // namespace railgauge::collectives
