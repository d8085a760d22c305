// run_cpu_blas() with OpenBLAS: operands, the measured operation, the data check.
#include <cblas.h>

#include <algorithm>
#include <cmath>
#include <vector>

#include <fmt/format.h>

#include "gemm/cpu_blas.h"
#include "gemm/operand_rotation.h"
#include "gemm/verify_bound.h"
#include "harness/cpus_given.h"
#include "harness/lockstep_measure.h"
#include "harness/openblas_kernels.h"
#include "harness/run_context.h"
#include "harness/waiver.h"
#include "records/gemm_record.h"

namespace railgauge::gemm {
namespace {

// How many output elements per GEMM the data check recomputes (each costs K multiply-adds in
// long double: negligible next to the GEMM).
constexpr std::int64_t kVerifiedElements = 256;
constexpr std::uint64_t kSeed = 0x7261696c;

template <typename T> struct Operands {
  GemmShape shape;
  std::vector<T> a, b, c; // batch × (M×K), batch × (K×N), batch × (M×N), row-major
};

template <typename T> Operands<T> make_operands(const GemmShape &s, std::uint64_t seed) {
  Operands<T> o{s, {}, {}, {}};
  o.a.resize(static_cast<std::size_t>(s.batch * s.m * s.k));
  o.b.resize(static_cast<std::size_t>(s.batch * s.k * s.n));
  o.c.assign(static_cast<std::size_t>(s.batch * s.m * s.n), T(0));
  for (std::size_t i = 0; i < o.a.size(); ++i)
    o.a[i] = static_cast<T>(operand_value(seed, i));
  for (std::size_t i = 0; i < o.b.size(); ++i)
    o.b[i] = static_cast<T>(operand_value(seed + 1, i));
  return o;
}

// The cache size operand_rotation() rotates against (it adds copies until they hold
// kRotationL2Multiple times it): one core's L2, or a quarter of the last-level cache where that
// is larger, so that the copies outgrow the last level too. A GPU's L2 is its last level; a CPU's
// L3 holds a small shape's operands between calls, which a training step does not (a block's
// weights and activations are tens of MB per rank: measured in docs/calibrate.md, "A block
// predicted"). 0 when hwloc knows neither.
std::uint64_t rotation_cache_bytes(const Topology &topology) {
  std::uint64_t l2 = 0, last = 0;
  for (const CacheLevel &level : topology.caches()) {
    if (level.type == 'i')
      continue;
    if (level.depth == 2)
      l2 = level.size_bytes;
    last = level.size_bytes; // one instance; levels come L1 first
  }
  return std::max<std::uint64_t>(
      l2, static_cast<std::uint64_t>(static_cast<double>(last) / kRotationL2Multiple));
}

// Copies of every GEMM's operands, so that consecutive calls read and write different memory
// (operand_rotation.h; the cuBLASLt backend does the same against the GPU's L2). Rotate::bc
// copies B and C only: A stays one copy that each call finds where the previous call left it,
// as in a block (the CPU one, block/transformer_tp.cpp, and a training step's fwd and dgrad),
// where a GEMM's A is the activation the previous op has just written and its B (the weights)
// and C were last touched a whole block ago. Rotate::none calls one set again and again. Set 0
// is the seeded one, and the one checked.
template <typename T> struct RotatedOperands {
  // sets[i][g]: GEMM g of the plan in set i; under Rotate::bc, a is empty for i > 0 (set 0's
  // is read)
  std::vector<std::vector<Operands<T>>> sets;
  OperandRotation rotation;
  std::size_t next = 0;

  std::vector<Operands<T>> &take() {
    auto &set = sets[next];
    next = (next + 1) % sets.size();
    return set;
  }
};

template <typename T>
RotatedOperands<T> make_rotated(const GemmPlan &plan, Rotate rotate, std::uint64_t cache_bytes,
                                std::uint64_t memory_budget_bytes) {
  RotatedOperands<T> r;
  std::vector<Operands<T>> first;
  std::uint64_t set_bytes = 0;
  for (std::size_t g = 0; g < plan.gemms.size(); ++g) {
    first.push_back(make_operands<T>(plan.gemms[g], kSeed + 2 * g));
    const auto &o = first.back();
    const std::size_t rotated = (rotate == Rotate::bc ? 0 : o.a.size()) + o.b.size() + o.c.size();
    set_bytes += rotated * sizeof(T);
  }
  if (rotate == Rotate::none)
    r.rotation = OperandRotation{1, "reused (rotate=none)", set_bytes};
  else
    r.rotation = cache_bytes > 0 ? operand_rotation(set_bytes, cache_bytes, memory_budget_bytes)
                                 : OperandRotation{1, "reused (cache sizes unknown)", set_bytes};
  // Set 0 is moved in, not copied: a single large set must not be held twice.
  r.sets.reserve(static_cast<std::size_t>(r.rotation.sets));
  r.sets.push_back(std::move(first));
  for (int i = 1; i < r.rotation.sets; ++i) {
    std::vector<Operands<T>> copy;
    for (const Operands<T> &o : r.sets.front())
      copy.push_back(Operands<T>{o.shape, rotate == Rotate::bc ? std::vector<T>{} : o.a, o.b, o.c});
    r.sets.push_back(std::move(copy));
  }
  return r;
}

// C = A·B for each of the shape's batch, row-major, with `a` from set 0 (RotatedOperands).
void gemm_call(const float *a, Operands<float> &o) {
  const auto &s = o.shape;
  for (std::int64_t i = 0; i < s.batch; ++i)
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, int(s.m), int(s.n), int(s.k), 1.0f,
                a + i * s.m * s.k, int(s.k), o.b.data() + i * s.k * s.n, int(s.n), 0.0f,
                o.c.data() + i * s.m * s.n, int(s.n));
}

void gemm_call(const double *a, Operands<double> &o) {
  const auto &s = o.shape;
  for (std::int64_t i = 0; i < s.batch; ++i)
    cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, int(s.m), int(s.n), int(s.k), 1.0,
                a + i * s.m * s.k, int(s.k), o.b.data() + i * s.k * s.n, int(s.n), 0.0,
                o.c.data() + i * s.m * s.n, int(s.n));
}

struct CheckResult {
  std::int64_t checked = 0, wrong = 0;
  double worst_error = 0; // error_over_bound() of the worst element
};

template <typename T> CheckResult check(const Operands<T> &o, VerifyBound bound) {
  const auto &s = o.shape;
  CheckResult r;
  for (std::int64_t e : sampled_elements(s.batch * s.m * s.n, kVerifiedElements, kSeed)) {
    const auto ref = reference_element(o.a.data(), o.b.data(), s.m, s.n, s.k, e);
    const double error =
        error_over_bound(static_cast<double>(o.c[std::size_t(e)]), static_cast<double>(ref.value),
                         static_cast<double>(ref.abs_sum), s.k, bound);
    ++r.checked;
    // NaN compares false: count it wrong explicitly.
    if (!(error <= 1.0))
      ++r.wrong;
    r.worst_error = std::isnan(error) ? error : std::max(r.worst_error, error);
  }
  return r;
}

template <typename T>
Outcome run_typed(RunContext &ctx, const GemmPlan &plan, Dtype dtype, double peak_tflops,
                  Rotate rotate, const BeforeVerify &before_verify,
                  const std::string &lockstep_name) {
  const int threads = cpus_given();
  openblas_set_num_threads(threads);

  // Memory for the copies: at most 1 GiB, and a quarter of the memory over the ranks (each rank
  // of this host makes its own; the operands' own share was checked in supported()).
  const auto budget = std::min<std::uint64_t>(
      std::uint64_t{1} << 30,
      static_cast<std::uint64_t>(physical_memory_bytes() / 4 / std::max(1, ctx.world_size())));
  RotatedOperands<T> rotated =
      make_rotated<T>(plan, rotate, rotation_cache_bytes(ctx.topology()), budget);
  std::vector<Operands<T>> &ops = rotated.sets.front();

  const Operation call = [&] {
    auto &set = rotated.take();
    for (std::size_t g = 0; g < set.size(); ++g)
      gemm_call(set[g].a.empty() ? ops[g].a.data() : set[g].a.data(), set[g]);
  };
  // Under mpirun or srun the ranks compute together, as a tensor-parallel step does.
  const auto together = measure_in_lockstep(ctx, lockstep_name, call);
  HostTimer timer;
  const Measurement m = together ? together->measurement : ctx.measure(timer, call);

  Outcome out;
  out.metrics = gemm_metrics(m, plan, dtype, peak_tflops);
  if (together) {
    const LockstepResult &l = together->lockstep;
    out.metrics[record::kLockstep] = {{record::kLockstepRanks, l.ranks},
                                      {record::kLockstepOwnTimeS, to_json(l.own_time_s)},
                                      {record::kLockstepSlowestRank, l.slowest_rank},
                                      {record::kLockstepSlowestRankShare, l.slowest_share}};
  }
  // json{...}, not a bare braced list: clang 14 leaks the old value when a bare list is assigned
  // inside a function template (found by the sanitizer tier).
  out.derived_params = nlohmann::json{{record::kBlasThreads, openblas_get_num_threads()},
                                      {record::kRanksPerHost, ranks_on_this_host()},
                                      {record::kBlasLibrary, openblas_description()},
                                      {record::kLayout, "row_major_nn"},
                                      {record::kOperandSets, rotated.rotation.sets},
                                      {record::kOperandBytesRotated, rotated.rotation.total_bytes},
                                      {record::kL2Policy, rotated.rotation.policy}};

  bool verified = false;
  if (ctx.verify()) {
    if (before_verify)
      for (std::size_t g = 0; g < ops.size(); ++g)
        before_verify(g, ops[g].c.data());
    CheckResult total;
    for (const auto &o : ops) {
      const CheckResult r = check(o, verify_bound(dtype));
      total.checked += r.checked;
      total.wrong += r.wrong;
      total.worst_error =
          std::isnan(r.worst_error) ? r.worst_error : std::max(total.worst_error, r.worst_error);
    }
    out.metrics[record::kVerifiedElements] = total.checked;
    out.metrics[record::kWrongElements] = total.wrong;
    out.metrics[record::kWorstErrorOverBound] = total.worst_error;
    out.metrics[record::kErrorBound] = verify_bound_json(dtype);
    verified = total.wrong == 0;
    if (total.wrong > 0) {
      out.status = Status::failed;
      out.reason = fmt::format(
          "{} of {} sampled output elements differ from the long double reference by more "
          "than {} (worst {:.3g} times that)",
          total.wrong, total.checked, verify_bound_text(dtype), total.worst_error);
    }
  }
  out.metrics[record::kVerified] = verified;
  return out;
}

} // namespace

std::optional<std::string> cpu_blas_unavailable_reason() { return std::nullopt; }

Outcome run_cpu_blas(RunContext &ctx, const GemmPlan &plan, Dtype dtype, double peak_tflops,
                     Rotate rotate, const BeforeVerify &before_verify,
                     const std::string &lockstep_name) {
  switch (dtype) {
  case Dtype::fp32:
    return run_typed<float>(ctx, plan, dtype, peak_tflops, rotate, before_verify, lockstep_name);
  case Dtype::fp64:
    return run_typed<double>(ctx, plan, dtype, peak_tflops, rotate, before_verify, lockstep_name);
  default:
    return Outcome::waived(not_applicable(
        fmt::format("the CPU backend runs fp32 and fp64, not {}", to_string(dtype))));
  }
}

} // namespace railgauge::gemm
