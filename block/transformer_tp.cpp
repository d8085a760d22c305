// block.transformer_tp with MPI and OpenBLAS (transformer_tp.h).
#include "block/transformer_tp.h"

#include <cblas.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "block/block_phases.h"
#include "block/tp_block_plan.h"
#include "block/transformer_tp_axes.h"
#include "collectives/mpi/mpi_point.h"
#include "collectives/mpi/mpi_session.h"
#include "gemm/gemm_point.h"
#include "gemm/verify_bound.h"
#include "harness/cpus_given.h"
#include "harness/lockstep.h"
#include "harness/openblas_kernels.h"
#include "harness/run_context.h"
#include "harness/stats.h"
#include "records/block_record.h"

namespace railgauge::block {
namespace {

using Clock = std::chrono::steady_clock;
constexpr std::uint64_t kSeed = 0x626c6f63;
constexpr std::int64_t kCheckedPerGemm = 32;
constexpr std::int64_t kCheckedPerCollective = 256;

// One rank alone (t = 1, no MPI launcher): nothing to wait for or gather.
class SoloGroup final : public LockstepGroup {
public:
  int rank() const override { return 0; }
  int size() const override { return 1; }
  void barrier() override {}
  std::vector<double> all_gather(const std::vector<double> &mine) override { return mine; }
};

// One step's buffers. `input` is the previous step's output where the sizes agree (the block's
// data flow), else this step's own seeded buffer; `output` is written by this step only, so after
// a block every step's input and output are still there for the check.
struct StepBuffers {
  const BlockStep *step = nullptr;
  std::vector<float> own_input, weights, output;
  const float *input = nullptr;
  std::size_t input_elements = 0;
};

std::vector<float> seeded(std::size_t n, std::uint64_t seed, double scale) {
  std::vector<float> v(n);
  for (std::size_t i = 0; i < n; ++i)
    v[i] = static_cast<float>(gemm::operand_value(seed, i) * scale);
  return v;
}

std::vector<StepBuffers> make_buffers(const std::vector<BlockStep> &steps, int tp, int rank) {
  std::vector<StepBuffers> out(steps.size());
  const float *prev = nullptr;
  std::size_t prev_elements = 0;
  for (std::size_t i = 0; i < steps.size(); ++i) {
    const auto &s = steps[i];
    auto &b = out[i];
    b.step = &s;
    std::size_t in_elements = 0, out_elements = 0;
    if (s.kind == StepKind::gemm) {
      const auto &g = s.gemm.shape;
      in_elements = static_cast<std::size_t>(g.batch * g.m * g.k);
      out_elements = static_cast<std::size_t>(g.batch * g.m * g.n);
      // Weights scaled by 1/√K keep the chained activations near 1 over the whole block.
      b.weights = seeded(static_cast<std::size_t>(g.batch * g.k * g.n), kSeed + 3 * i + 1,
                         1.0 / std::sqrt(static_cast<double>(g.k)));
    } else {
      const auto whole = static_cast<std::size_t>(s.size_elements);
      in_elements = s.op == CollectiveOp::all_gather ? whole / tp : whole;
      out_elements = s.op == CollectiveOp::reduce_scatter ? whole / tp : whole;
    }
    b.input_elements = in_elements;
    if (prev && prev_elements == in_elements) {
      b.input = prev;
    } else {
      // Each rank's own values, so a collective's result depends on every rank.
      b.own_input = seeded(in_elements, kSeed + 3 * i + 1000 * (rank + 1), 1.0);
      b.input = b.own_input.data();
    }
    b.output.assign(out_elements, 0.0f);
    prev = b.output.data();
    prev_elements = out_elements;
  }
  return out;
}

void run_gemm(StepBuffers &b) {
  const auto &g = b.step->gemm.shape;
  for (std::int64_t i = 0; i < g.batch; ++i)
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, int(g.m), int(g.n), int(g.k), 1.0f,
                b.input + i * g.m * g.k, int(g.k), b.weights.data() + i * g.k * g.n, int(g.n), 0.0f,
                b.output.data() + i * g.m * g.n, int(g.n));
}

void start_collective(collectives::MpiSession &s, StepBuffers &b, int tp, MPI_Request &req) {
  const int part = static_cast<int>(b.step->size_elements / tp);
  auto *in = const_cast<float *>(b.input); // MPI-3 send buffers are const; older headers not
  switch (b.step->op) {
  case CollectiveOp::all_reduce:
    check_mpi(MPI_Iallreduce(in, b.output.data(), int(b.step->size_elements), MPI_FLOAT, MPI_SUM,
                             s.world(), &req),
              "MPI_Iallreduce");
    break;
  case CollectiveOp::all_gather:
    check_mpi(
        MPI_Iallgather(in, part, MPI_FLOAT, b.output.data(), part, MPI_FLOAT, s.world(), &req),
        "MPI_Iallgather");
    break;
  case CollectiveOp::reduce_scatter:
    check_mpi(
        MPI_Ireduce_scatter_block(in, b.output.data(), part, MPI_FLOAT, MPI_SUM, s.world(), &req),
        "MPI_Ireduce_scatter_block");
    break;
  }
}

// Sampled output elements of a GEMM step against long double; returns how many are wrong.
std::int64_t wrong_gemm_elements(const StepBuffers &b) {
  const auto &g = b.step->gemm.shape;
  const auto bound = gemm::verify_bound(gemm::Dtype::fp32);
  std::int64_t wrong = 0;
  for (std::int64_t e : gemm::sampled_elements(g.batch * g.m * g.n, kCheckedPerGemm, kSeed)) {
    const auto ref = gemm::reference_element(b.input, b.weights.data(), g.m, g.n, g.k, e);
    const double err = gemm::error_over_bound(b.output[std::size_t(e)], double(ref.value),
                                              double(ref.abs_sum), g.k, bound);
    if (!(err <= 1.0))
      ++wrong;
  }
  return wrong;
}

// A collective step's output on this rank against every rank's input (gathered for the check):
// a sum in any order of t fp32 terms is within t·u·Σ|x| of the exact one; a gather is exact.
std::int64_t wrong_collective_elements(collectives::MpiSession &s, const StepBuffers &b, int tp,
                                       double timeout_s) {
  const std::vector<double> mine(b.input, b.input + b.input_elements);
  const std::vector<double> all = s.all_gather(s.world(), mine, timeout_s);
  const std::size_t in = b.input_elements;
  const std::size_t part = static_cast<std::size_t>(b.step->size_elements / tp);
  std::int64_t wrong = 0;
  for (std::int64_t e :
       gemm::sampled_elements(std::int64_t(b.output.size()), kCheckedPerCollective, kSeed + 7)) {
    const auto i = static_cast<std::size_t>(e);
    double expected = 0, abs_sum = 0;
    bool exact = false;
    switch (b.step->op) {
    case CollectiveOp::all_reduce:
      for (int r = 0; r < tp; ++r) {
        expected += all[r * in + i];
        abs_sum += std::fabs(all[r * in + i]);
      }
      break;
    case CollectiveOp::reduce_scatter:
      for (int r = 0; r < tp; ++r) {
        const double x = all[r * in + s.rank() * part + i];
        expected += x;
        abs_sum += std::fabs(x);
      }
      break;
    case CollectiveOp::all_gather:
      expected = all[(i / part) * in + i % part];
      exact = true;
      break;
    }
    const double got = b.output[i];
    const double tolerance = exact ? 0.0 : 2.0 * tp * 0x1p-24 * abs_sum;
    if (!(std::fabs(got - expected) <= tolerance))
      ++wrong;
  }
  return wrong;
}

class TransformerTp final : public KeyedBenchmark {
public:
  explicit TransformerTp(std::shared_ptr<BlockTestHooks> hooks)
      : KeyedBenchmark(
            record::kTransformerTp,
            "one Megatron transformer block (forward and backward GEMMs, fp32 OpenBLAS) with its "
            "tensor-parallel MPI collectives across the ranks (t = world size): block time, "
            "per-phase times, data checked"),
        hooks_(std::move(hooks)) {}

  std::vector<Axis> axes() const override { return transformer_tp_axes(); }

  std::optional<std::string> supported(const RunContext &, const Point &point) const override {
    const auto model = gemm::point_model(point);
    const int tp = family_->world_size_hint();
    if (auto why = gemm::tp_split_problem(model, tp))
      return "not applicable: " + *why;
    return std::nullopt;
  }

  Outcome run(RunContext &ctx, const Point &point) override {
    const BlockPointSettings settings = block_point_settings(point);
    const int tp = family_->world_size_hint();
    collectives::MpiSession *s = tp > 1 ? &family_->session(ctx.peer_timeout_s()) : nullptr;
    const int rank = s ? s->rank() : 0;
    const int threads = std::max(1, cpus_given());
    openblas_set_num_threads(threads);

    const auto steps = tp_block_steps(settings.model, tp, settings.sequence_parallel);
    auto buffers = make_buffers(steps, tp, rank);
    std::vector<double> step_s; // this rank: iteration after iteration, one time per step
    const Operation block = [&] {
      auto t0 = Clock::now();
      for (auto &b : buffers) {
        if (b.step->kind == StepKind::gemm) {
          run_gemm(b);
        } else {
          MPI_Request req;
          start_collective(*s, b, tp, req);
          s->wait(req, b.step->name, settings.timeout_s);
        }
        const auto t1 = Clock::now();
        step_s.push_back(std::chrono::duration<double>(t1 - t0).count());
        t0 = t1;
      }
    };

    SoloGroup solo;
    std::optional<collectives::MpiLockstepGroup> mpi_group;
    if (s)
      mpi_group.emplace(*s, s->world(), settings.timeout_s);
    LockstepGroup &group = s ? static_cast<LockstepGroup &>(*mpi_group) : solo;
    std::vector<int> names(tp);
    for (int r = 0; r < tp; ++r)
      names[r] = r;
    HostIterationTimer timer;
    LockstepSpec spec;
    spec.warmup = settings.warmup;
    spec.iterations = settings.iterations;
    spec.back_to_back_pass = false;
    const LockstepResult r = run_lockstep(group, timer, spec, block, names);

    // The phases of the timed iterations, every rank's, gathered after the loop.
    const std::vector<double> mine(step_s.begin() + std::ptrdiff_t(settings.warmup * steps.size()),
                                   step_s.end());
    const std::vector<double> all = group.all_gather(mine);

    Outcome out;
    out.metrics = r.to_json();
    add_block_metrics(out.metrics, steps, all, tp, settings.iterations, r.time_s.median,
                      sizeof(float));

    // The data check: one more block, then every step's output.
    if (ctx.verify()) {
      step_s.clear();
      if (s)
        s->barrier(s->world(), settings.timeout_s);
      block();
      check_block_data(s, buffers, tp, settings.timeout_s, out);
    } else {
      out.metrics[record::kVerified] = false;
    }
    out.derived_params = gemm::model_params(settings.model);
    out.derived_params.update({{record::kTp, tp},
                               {record::kDtype, "fp32"},
                               {record::kBlasThreads, openblas_get_num_threads()},
                               {record::kRanksPerHost, ranks_on_this_host()},
                               {record::kBlasLibrary, openblas_description()},
                               {record::kLayout, "row_major_nn"}});
    if (s)
      out.derived_params[record::kMpiLibrary] = s->library_version();
    return out;
  }

private:
  // Every step's output after a checked block, counted over all ranks into out.
  void check_block_data(collectives::MpiSession *s, std::vector<StepBuffers> &buffers, int tp,
                        double timeout_s, Outcome &out) const {
    std::vector<std::string> problems;
    std::int64_t gemm_wrong = 0, collective_wrong = 0;
    std::string first_wrong;
    for (auto &b : buffers) {
      std::int64_t w = 0;
      if (b.step->kind == StepKind::gemm) {
        w = wrong_gemm_elements(b);
        gemm_wrong += w;
      } else {
        if (hooks_->before_check)
          hooks_->before_check(b.output.data(), b.output.size());
        w = wrong_collective_elements(*s, b, tp, timeout_s);
        collective_wrong += w;
      }
      if (w > 0 && first_wrong.empty())
        first_wrong = b.step->name;
    }
    long long gemm_all = gemm_wrong, collective_all = collective_wrong;
    if (s) {
      gemm_all = s->all_reduce_sum(s->world(), gemm_wrong, timeout_s);
      collective_all = s->all_reduce_sum(s->world(), collective_wrong, timeout_s);
    }
    record::BlockDataCheck{gemm_all, collective_all}.write(out.metrics);
    if (collective_all > 0)
      problems.push_back(fmt::format(
          "{} sampled collective output elements over all ranks differ from every rank's "
          "inputs reduced or gathered (this rank: {}, first at {})",
          collective_all, collective_wrong, first_wrong.empty() ? "-" : first_wrong));
    if (gemm_all > 0)
      problems.push_back(
          fmt::format("{} sampled GEMM output elements over all ranks differ from the long double "
                      "reference by more than the fp32 bound (this rank: {})",
                      gemm_all, gemm_wrong));
    out.conclude_data_check(problems);
  }

  std::shared_ptr<BlockTestHooks> hooks_;
  std::shared_ptr<collectives::MpiFamily> family_ = std::make_shared<collectives::MpiFamily>();
};

} // namespace

std::unique_ptr<Benchmark> make_transformer_tp(std::shared_ptr<BlockTestHooks> hooks) {
  return std::make_unique<TransformerTp>(std::move(hooks));
}

} // namespace railgauge::block
