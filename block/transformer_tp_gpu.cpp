// block.transformer_tp_gpu with CUDA and NCCL (transformer_tp_gpu.h).
#include "block/transformer_tp_gpu.h"

#include <algorithm>
#include <cmath>
#include <optional>
#include <string>
#include <vector>

#include <cuda_runtime_api.h>
#include <fmt/format.h>
#include <nccl.h>

#include "block/block_phases.h"
#include "block/tp_block_plan.h"
#include "block/transformer_tp_axes.h"
#include "collectives/dtype.h"
#include "collectives/nccl/nccl_group.h"
#include "collectives/nccl/nccl_point.h"
#include "collectives/nccl/nccl_session.h"
#include "collectives/wrong_elements.h"
#include "gemm/cuda/cublaslt.h"
#include "gemm/cuda/cublaslt_plan.h"
#include "gemm/cuda/gemm_kernels.h"
#include "gemm/cuda/lt_matmul.h"
#include "gemm/cuda/reference_check.h"
#include "gemm/gemm_point.h"
#include "gemm/verify_bound.h"
#include "harness/cpus_given.h"
#include "harness/cuda/check.h"
#include "harness/cuda/cublaslt_handles.h"
#include "harness/cuda/device.h"
#include "harness/cuda/resources.h"
#include "harness/error.h"
#include "harness/inventory/gpu_telemetry.h"
#include "harness/run_context.h"
#include "records/block_record.h"

namespace railgauge::block {
namespace {

constexpr std::uint64_t kGpuSeed = 0x626c6f67;
constexpr std::int64_t kGpuCheckedPerGemm = 1024;
constexpr int kCandidates = 4; // asked of the heuristic; the first that runs is used
constexpr gemm::Dtype kGemmDtype = gemm::Dtype::bf16;
constexpr collectives::DType kCollectiveDtype = collectives::DType::bf16;
constexpr std::size_t kElementBytes = 2; // bf16

std::uint64_t gemm_elements(const gemm::GemmShape &g, std::int64_t rows, std::int64_t cols) {
  return static_cast<std::uint64_t>(g.batch * rows * cols);
}

// What make_steps() allocates on each GPU, at most: every step its output, a GEMM its weights
// and input, a collective its input; and the cuBLASLt workspace.
std::uint64_t block_device_bytes(const std::vector<BlockStep> &steps) {
  std::uint64_t elements = 0;
  for (const BlockStep &step : steps) {
    if (step.kind == StepKind::gemm) {
      const auto &g = step.gemm.shape;
      elements +=
          gemm_elements(g, g.m, g.k) + gemm_elements(g, g.k, g.n) + gemm_elements(g, g.m, g.n);
    } else {
      elements += 2 * static_cast<std::uint64_t>(step.size_elements);
    }
  }
  return elements * kElementBytes + gemm::kLtWorkspaceBytes;
}

// One step on one GPU. A GEMM's input is the previous GEMM's output where the element counts
// agree, else `own_input`; a collective's is always `own_input` (exactly checkable values).
struct GpuStep {
  const BlockStep *step = nullptr;
  std::optional<gemm::LtMatmul> lt;
  cublasLtMatmulAlgo_t algo{};
  float alpha = 1.0f;
  std::optional<gpu::DeviceBuffer> own_input, weights;
  std::optional<gpu::DeviceBuffer> output;
  const void *input = nullptr;
  std::uint64_t input_elements = 0, output_elements = 0;
};

// One local GPU's block: its cuBLASLt handle and workspace, every step's buffers and an event
// after every step (marks[0] before the first). Constructed with the GPU current.
struct LocalBlock {
  LocalBlock(int device_index, std::size_t local_index)
      : device(device_index), local(local_index), workspace(gemm::kLtWorkspaceBytes) {}
  int device;
  std::size_t local;
  gpu::LtHandle handle;
  gpu::DeviceBuffer workspace;
  std::vector<GpuStep> steps;
  std::vector<gpu::Event> marks;
};

// Allocates and seeds the steps of `local` (its world rank in `s`'s), and picks each GEMM's
// algorithm; the refused ones go to `refused`.
void make_steps(collectives::NcclSession &s, LocalBlock &local, const std::vector<BlockStep> &steps,
                nlohmann::json &refused) {
  const int rank = s.rank(local.local), tp = s.nranks();
  const cudaStream_t stream = s.stream(local.local);
  const auto storage = gemm::dtype_storage(kGemmDtype);
  // A GEMM reads the previous GEMM's output, never a collective's: a collective's output holds
  // the collectives family's small exact integers (many zeros), and a GPU's GEMM rate depends on
  // its operands through power, so such a GEMM would not run at the rate gemm.cublaslt measured.
  const void *prev = nullptr;
  std::uint64_t prev_elements = 0;
  local.steps.resize(steps.size());
  for (std::size_t j = 0; j < steps.size(); ++j) {
    const BlockStep &step = steps[j];
    GpuStep &b = local.steps[j];
    b.step = &step;
    if (step.kind == StepKind::gemm) {
      const auto &g = step.gemm.shape;
      b.input_elements = gemm_elements(g, g.m, g.k);
      b.output_elements = gemm_elements(g, g.m, g.n);
      b.weights.emplace(gemm_elements(g, g.k, g.n) * kElementBytes);
      gemm::fill_operand(b.weights->get(), storage.b, gemm_elements(g, g.k, g.n),
                         kGpuSeed + 3 * j + 1, stream);
      b.alpha = static_cast<float>(1.0 / std::sqrt(static_cast<double>(g.k)));
      if (prev && prev_elements == b.input_elements) {
        b.input = prev;
      } else {
        b.own_input.emplace(b.input_elements * kElementBytes);
        gemm::fill_operand(b.own_input->get(), storage.a, b.input_elements,
                           kGpuSeed + 3 * j + 1000 * std::uint64_t(rank + 1), stream);
        b.input = b.own_input->get();
      }
      b.output.emplace(b.output_elements * kElementBytes);
      b.lt.emplace(g, kGemmDtype, step.gemm.layout, nullptr);
      auto candidates = b.lt->heuristic(local.handle, kCandidates, local.workspace.bytes(), false);
      for (auto &entry : gemm::drop_refused(
               *b.lt, local.handle, candidates, b.input, b.weights->get(), b.output->get(),
               local.workspace.get(), local.workspace.bytes(), stream)) {
        entry[record::kRefusedAlgoStep] = step.name;
        refused.push_back(std::move(entry));
      }
      if (candidates.empty())
        throw BackendError(fmt::format(
            "cuBLASLt {} has no algorithm it will run for {} ({}×{}×{}, batch {}, layout {}); "
            "refused: {}",
            gpu::cublaslt_version(), step.name, g.m, g.n, g.k, g.batch, to_string(step.gemm.layout),
            refused.dump()));
      b.algo = candidates.front().algo;
    } else {
      const auto whole = static_cast<std::uint64_t>(step.size_elements);
      const std::uint64_t part = whole / static_cast<std::uint64_t>(tp);
      b.input_elements = step.op == CollectiveOp::all_gather ? part : whole;
      b.output_elements = step.op == CollectiveOp::reduce_scatter ? part : whole;
      std::vector<std::uint16_t> host(b.input_elements);
      const std::uint64_t first =
          step.op == CollectiveOp::all_gather ? static_cast<std::uint64_t>(rank) * part : 0;
      collectives::fill_input(kCollectiveDtype, collectives::RedOp::sum, kGpuSeed + j, rank, tp,
                              first, host.data(), host.size());
      b.own_input.emplace(b.input_elements * kElementBytes);
      collectives::upload(s, local.local, b.own_input->get(), host.data(),
                          host.size() * kElementBytes);
      b.input = b.own_input->get();
      b.output.emplace(b.output_elements * kElementBytes);
    }
    prev = step.kind == StepKind::gemm ? b.output->get() : nullptr;
    prev_elements = b.output_elements;
  }
  RAILGAUGE_CUDA_CALL(cudaStreamSynchronize(stream));
  local.marks.resize(steps.size() + 1);
}

void enqueue_collectives(collectives::NcclSession &s, std::vector<LocalBlock> &locals,
                         std::size_t j) {
  collectives::NcclGroup group;
  for (auto &l : locals) {
    GpuStep &b = l.steps[j];
    const ncclComm_t comm = s.comm(l.local);
    const cudaStream_t stream = s.stream(l.local);
    const auto type = collectives::nccl_type(kCollectiveDtype);
    switch (b.step->op) {
    case CollectiveOp::all_reduce:
      collectives::check_nccl(
          ncclAllReduce(b.input, b.output->get(), b.output_elements, type, ncclSum, comm, stream),
          "ncclAllReduce");
      break;
    case CollectiveOp::all_gather:
      collectives::check_nccl(
          ncclAllGather(b.input, b.output->get(), b.input_elements, type, comm, stream),
          "ncclAllGather");
      break;
    case CollectiveOp::reduce_scatter:
      collectives::check_nccl(ncclReduceScatter(b.input, b.output->get(), b.output_elements, type,
                                                ncclSum, comm, stream),
                              "ncclReduceScatter");
      break;
    }
  }
  group.end();
}

// Enqueues one block on every local GPU, an event after each step.
void enqueue_block(collectives::NcclSession &s, std::vector<LocalBlock> &locals) {
  for (auto &l : locals) {
    gpu::DeviceGuard guard(l.device);
    RAILGAUGE_CUDA_CALL(cudaEventRecord(l.marks[0].get(), s.stream(l.local)));
  }
  const std::size_t steps = locals.front().steps.size();
  for (std::size_t j = 0; j < steps; ++j) {
    if (locals.front().steps[j].step->kind == StepKind::gemm) {
      for (auto &l : locals) {
        gpu::DeviceGuard guard(l.device);
        GpuStep &b = l.steps[j];
        const cublasStatus_t status =
            b.lt->run(l.handle, b.algo, b.input, b.weights->get(), b.output->get(),
                      l.workspace.get(), l.workspace.bytes(), s.stream(l.local), b.alpha);
        if (status != CUBLAS_STATUS_SUCCESS)
          throw BackendError(gpu::status_message(status, "cublasLtMatmul", __FILE__, __LINE__));
      }
    } else {
      enqueue_collectives(s, locals, j);
    }
    for (auto &l : locals) {
      gpu::DeviceGuard guard(l.device);
      RAILGAUGE_CUDA_CALL(cudaEventRecord(l.marks[j + 1].get(), s.stream(l.local)));
    }
  }
}

// Appends each step's time in the last block enqueued to its local GPU's list (`per_gpu[i]`,
// one rank's times: the phase metrics take the max over ranks of each rank's summed phases, so
// one process driving several GPUs reports what one process per GPU does). Never waits: it runs
// inside the next timed block, while the timer's gate holds the streams, so a wait for the
// streams would wait for the gate itself (each block then stalled until the gate gave up). The
// lockstep loop has already waited for the block, under the session's deadline: its barrier
// drains the streams before a warm-up block and the timer waits after a timed one.
void append_step_times_s(const std::vector<LocalBlock> &locals,
                         std::vector<std::vector<double>> &per_gpu) {
  for (std::size_t i = 0; i < locals.size(); ++i) {
    const auto &l = locals[i];
    gpu::DeviceGuard guard(l.device);
    const cudaError_t done = cudaEventQuery(l.marks.back().get());
    if (done != cudaSuccess)
      throw BackendError(fmt::format(
          "block.transformer_tp_gpu: the step times of GPU {} were read before its block "
          "finished ({}); the lockstep loop waits for every block, so this is a bug",
          l.device, cudaGetErrorString(done)));
    for (std::size_t j = 0; j + 1 < l.marks.size(); ++j) {
      float ms = 0;
      RAILGAUGE_CUDA_CALL(cudaEventElapsedTime(&ms, l.marks[j].get(), l.marks[j + 1].get()));
      per_gpu[i].push_back(ms * 1e-3);
    }
  }
}

// Sampled elements of a GEMM step's output against fp64 on the GPU; the number over the bound.
std::int64_t wrong_gemm_elements(const GpuStep &b, cudaStream_t stream, std::uint64_t seed) {
  const auto &g = b.step->gemm.shape;
  const auto picked = gemm::sampled_elements(g.batch * g.m * g.n, kGpuCheckedPerGemm, seed);
  gemm::ReferenceProblem pr = gemm::reference_problem(b.input, b.weights->get(), b.output->get(),
                                                      kGemmDtype, g, b.step->gemm.layout);
  pr.scale = b.alpha;
  const std::vector<double> host = gemm::sampled_reference_errors(pr, picked, stream);
  return std::count_if(host.begin(), host.end(), [](double e) { return !(e <= 1.0); });
}

// A collective step's whole output against the exact values (collectives/dtype.h).
std::uint64_t wrong_collective_elements(const GpuStep &b, std::size_t j, int rank, int tp) {
  std::vector<std::uint16_t> host(b.output_elements);
  RAILGAUGE_CUDA_CALL(cudaMemcpy(host.data(), b.output->get(), host.size() * kElementBytes,
                                 cudaMemcpyDeviceToHost));
  const auto t = kCollectiveDtype;
  const auto sum = collectives::RedOp::sum;
  const std::uint64_t seed = kGpuSeed + j;
  const auto reduced = [&](std::uint64_t i) {
    return collectives::reduced_value(t, sum, seed, tp, i);
  };
  switch (b.step->op) {
  case CollectiveOp::all_reduce:
    return collectives::check_elements(t, host.data(), host.size(), 0, reduced).wrong;
  case CollectiveOp::reduce_scatter:
    return collectives::check_elements(t, host.data(), host.size(),
                                       static_cast<std::uint64_t>(rank) * host.size(), reduced)
        .wrong;
  case CollectiveOp::all_gather: {
    const std::uint64_t part = b.input_elements;
    return collectives::check_elements(t, host.data(), host.size(), 0,
                                       [&](std::uint64_t i) {
                                         return collectives::input_value(
                                             t, sum, seed, static_cast<int>(i / part), tp, i);
                                       })
        .wrong;
  }
  }
  return 0;
}

// The wrong elements of every process ({GEMM, collective} each) into out's metrics and its data
// check; wrong_here is this process's.
void add_wrong_elements(const std::vector<double> &per_process,
                        const std::vector<double> &wrong_here, Outcome &out) {
  double gemm_wrong = 0, collective_wrong = 0;
  for (std::size_t p = 0; p + 1 < per_process.size(); p += 2) {
    gemm_wrong += per_process[p];
    collective_wrong += per_process[p + 1];
  }
  record::BlockDataCheck{std::int64_t(gemm_wrong), std::int64_t(collective_wrong)}.write(
      out.metrics);
  std::vector<std::string> problems;
  if (collective_wrong > 0)
    problems.push_back(fmt::format("{} collective output elements over all ranks differ from "
                                   "the exact sum or gather (this process: {})",
                                   collective_wrong, wrong_here[1]));
  if (gemm_wrong > 0)
    problems.push_back(fmt::format("{} sampled GEMM output elements over all ranks differ "
                                   "from the fp64 reference by more than the bf16 bound (this "
                                   "process: {})",
                                   gemm_wrong, wrong_here[0]));
  out.conclude_data_check(problems);
}

class TransformerTpGpu final : public KeyedBenchmark {
public:
  explicit TransformerTpGpu(std::shared_ptr<GpuBlockTestHooks> hooks)
      : KeyedBenchmark(
            record::kTransformerTpGpu,
            "one Megatron transformer block on GPUs (forward and backward GEMMs, bf16 cuBLASLt) "
            "with its tensor-parallel NCCL collectives across the ranks (t = world size, one GPU "
            "each): block time, per-phase times, data checked"),
        hooks_(std::move(hooks)) {}

  std::vector<Axis> axes() const override { return transformer_tp_axes("gpt3-175b"); }

  std::optional<std::string> supported(const RunContext &ctx, const Point &point) const override {
    if (auto why = gpu::cuda_unavailable_reason())
      return "no usable CUDA device: " + *why;
    if (ctx.world_size() > 1 && !ctx.store())
      return "a multi-rank NCCL run needs the run's store (launch under srun or mpirun)";
    const int tp = ctx.world_size() > 1 ? ctx.world_size() : gpu::cuda_device_count();
    const gemm::ModelShape model = gemm::point_model(point);
    if (auto why = gemm::tp_split_problem(model, tp))
      return "not applicable: " + *why;
    // One process drives every visible GPU, and each holds every step's buffers (no step reuses
    // another's output buffer: each is checked after the block). Under srun or mpirun a rank
    // knows its GPU only once the session has compared hosts; there a rank that cannot allocate
    // fails the point, and the others' lockstep wait times out naming it.
    if (ctx.world_size() > 1)
      return std::nullopt;
    const auto need = static_cast<double>(block_device_bytes(
        tp_block_steps(model, tp, point.integer(record::kSequenceParallel) != 0)));
    for (int d = 0; d < tp; ++d)
      if (auto why = gemm::tp_memory_problem(need, gpu::cuda_device_info(d), "the block's buffers"))
        return why;
    return std::nullopt;
  }

  Outcome run(RunContext &ctx, const Point &point) override {
    const BlockPointSettings settings = block_point_settings(point);
    collectives::NcclSession &s =
        collectives::open_nccl_session(session_, ctx, std::string(key()), settings.timeout_s);
    const int tp = s.nranks();
    const auto steps = tp_block_steps(settings.model, tp, settings.sequence_parallel);

    std::vector<LocalBlock> locals;
    locals.reserve(s.local_count());
    nlohmann::json refused = nlohmann::json::array();
    for (std::size_t i = 0; i < s.local_count(); ++i) {
      gpu::DeviceGuard guard(s.device(i));
      locals.emplace_back(s.device(i), i);
      make_steps(s, locals.back(), steps, refused);
    }
    // Declared after the buffers: a failed point drains the streams under the watchdog first.
    collectives::DrainOnFailure drain(s, settings.timeout_s);

    // Per local GPU: block after block, one time per step.
    std::vector<std::vector<double>> step_s(locals.size());
    bool pending = false; // a block was enqueued whose step times are not yet read
    const auto read_pending = [&] {
      if (!pending)
        return;
      append_step_times_s(locals, step_s);
      pending = false;
    };
    // The timer waits for each block before the next call, so its events have completed.
    const Operation block = [&] {
      read_pending();
      enqueue_block(s, locals);
      pending = true;
    };

    const std::string what = fmt::format("{} block at t = {}", settings.model.name, tp);
    collectives::NcclIterationTimer timer(s, what, settings.timeout_s);
    collectives::NcclLockstepGroup group(
        ctx, timer, fmt::format("lockstep/{}/{}", key(), point.label()), settings.timeout_s);
    LockstepSpec spec;
    spec.warmup = settings.warmup;
    spec.iterations = settings.iterations;
    spec.back_to_back_pass = false;
    std::vector<std::string> uuids;
    for (const auto &l : locals)
      uuids.push_back(gpu::cuda_device_info(l.device).uuid);
    GpuTelemetryWindows telemetry(uuids);
    auto r = run_lockstep(group, timer, spec, block);
    group.name_slowest_gpu(r, settings.iterations);
    timer.drain();
    read_pending();
    const nlohmann::json telemetry_json = telemetry.finish();

    // The timed blocks' phases (the last `iterations`), every process's, gathered.
    // Each local GPU is a rank of the group (ranks in order: process, then local GPU).
    const std::size_t timed = std::size_t(settings.iterations) * steps.size();
    std::vector<double> mine;
    for (const auto &times : step_s) {
      if (times.size() < timed)
        throw BackendError(fmt::format("{}: {} step times for {} timed blocks of {} steps", key(),
                                       times.size(), settings.iterations, steps.size()));
      mine.insert(mine.end(), times.end() - std::ptrdiff_t(timed), times.end());
    }
    const std::vector<double> all = group.all_gather(mine);

    Outcome out;
    out.metrics = r.to_json();
    add_block_metrics(out.metrics, steps, all, int(all.size() / timed), settings.iterations,
                      r.time_s.median, kElementBytes);
    if (!refused.empty())
      out.metrics[record::kRefusedAlgos] = std::move(refused);
    out.metrics[record::kTelemetry] = telemetry_json;
    collectives::add_nccl_identity(out.metrics);
    collectives::add_gate_timeouts(out.metrics, timer.gates().timed_out());

    if (ctx.verify()) {
      enqueue_block(s, locals);
      timer.drain();
      const std::vector<double> wrong_here = wrong_elements_here(s, locals, tp);
      add_wrong_elements(group.all_gather(wrong_here), wrong_here, out);
    } else {
      out.metrics[record::kVerified] = false;
    }

    out.derived_params = gemm::model_params(settings.model);
    out.derived_params.update({{record::kTp, tp},
                               {record::kDtype, "bf16"},
                               {record::kRanksPerHost, ranks_on_this_host()},
                               {record::kGpusPerProcess, static_cast<int>(s.local_count())},
                               {record::kLayout, "training"},
                               {record::kCublasltVersion, gpu::cublaslt_version()},
                               {record::kGpuName, gpu::cuda_device_info(s.device(0)).name}});
    return out;
  }

private:
  // This process's wrong elements after a checked block: {GEMM, collective}.
  std::vector<double> wrong_elements_here(collectives::NcclSession &s,
                                          std::vector<LocalBlock> &locals, int tp) const {
    std::vector<double> wrong_here = {0, 0};
    for (auto &l : locals) {
      gpu::DeviceGuard guard(l.device);
      for (std::size_t j = 0; j < l.steps.size(); ++j) {
        const GpuStep &b = l.steps[j];
        if (b.step->kind == StepKind::gemm) {
          if (hooks_ && hooks_->before_check)
            hooks_->before_check(b.output->get(), b.output_elements * kElementBytes, l.device);
          wrong_here[0] += double(wrong_gemm_elements(b, s.stream(l.local), kGpuSeed + j));
        } else {
          wrong_here[1] += double(wrong_collective_elements(b, j, s.rank(l.local), tp));
        }
      }
    }
    return wrong_here;
  }

  std::shared_ptr<GpuBlockTestHooks> hooks_;
  collectives::NcclSessionSlot session_;
};

} // namespace

std::unique_ptr<Benchmark> make_transformer_tp_gpu(std::shared_ptr<GpuBlockTestHooks> hooks) {
  return std::make_unique<TransformerTpGpu>(std::move(hooks));
}

} // namespace railgauge::block
