// The CPU GEMM backend: points planned from axes, one measured and verified point of each
// dtype, a corrupted output failing the point, waivers. Small shapes, short measurements, no
// timing assertions.
#include <sched.h>

#include <gtest/gtest.h>

#include "tests/support/quick_run_context.h"
#include "tests/support/thread_ranks.h"

#include "gemm/cpu_blas.h"
#include "gemm/register_gemm.h"
#include "harness/error.h"
#include "harness/registry.h"
#include "harness/run_context.h"
#include "harness/store/memory_store.h"
#include "railgauge/config.h"

namespace railgauge::gemm {
namespace {

Point cpu_tp_point(const std::string &gemm, const std::string &pass, std::int64_t tp,
                   std::int64_t seq = 64, const std::string &dtype = "fp32") {
  Point p;
  p.set("dtype", dtype);
  p.set("model", std::string("cpu-small"));
  p.set("tp", tp);
  p.set("gemm", gemm);
  p.set("pass", pass);
  p.set("seq", seq);
  for (const char *name : {"micro_batch", "hidden", "heads", "kv_heads", "ffn"})
    p.set(name, std::int64_t{0});
  p.set("swiglu", std::int64_t{-1});
  p.set("peak_tflops", 0.0);
  p.set("rotate", std::string("abc"));
  return p;
}

Point size_point(std::int64_t m, const std::string &dtype, std::int64_t n = 0, std::int64_t k = 0,
                 std::int64_t batch = 1, double peak = 0) {
  Point p;
  p.set("dtype", dtype);
  p.set("m", m);
  p.set("n", n);
  p.set("k", k);
  p.set("batch", batch);
  p.set("peak_tflops", peak);
  p.set("rotate", std::string("abc"));
  return p;
}

TEST(GemmPoint, TpPointPlansTheBlockGemm) {
  const GemmPlan qkv = plan_tp_point(cpu_tp_point("qkv", "wgrad", 4, 512));
  EXPECT_EQ(qkv.op, "qkv.wgrad");
  ASSERT_EQ(qkv.gemms.size(), 1u);
  EXPECT_EQ(qkv.gemms[0], (GemmShape{1024, 3 * 1024 / 4, 512, 1}));
  EXPECT_EQ(qkv.derived.at("m"), 1024);
  EXPECT_EQ(qkv.derived.at("seq"), 512);
  EXPECT_EQ(qkv.derived.at("hidden"), 1024);
  const GemmPlan ctx = plan_tp_point(cpu_tp_point("context", "dgrad", 2, 128));
  EXPECT_EQ(ctx.op, "context.dgrad");
  ASSERT_EQ(ctx.gemms.size(), 2u);
  EXPECT_EQ(ctx.operands, (std::vector<std::string>{"dp", "dv"}));
  EXPECT_EQ(ctx.gemms[0], (GemmShape{128, 128, 64, 8}));
  EXPECT_EQ(ctx.gemm_list.size(), 2u);
  EXPECT_FALSE(ctx.derived.contains("gemms")); // params stay scalars (record schema)
  EXPECT_DOUBLE_EQ(ctx.flops(), 2 * gemm_flops({128, 64, 128, 8}));
  EXPECT_THROW(plan_tp_point(cpu_tp_point("scores", "wgrad", 1)), InputError);
  EXPECT_THROW(plan_tp_point(cpu_tp_point("qkv", "fwd", 32)), InputError); // 16 heads
  // M = seq x micro_batch beyond a BLAS `int`: refused, never truncated.
  try {
    plan_tp_point(cpu_tp_point("qkv", "fwd", 1, std::int64_t{1} << 31));
    FAIL() << "a 2^31-row GEMM was planned";
  } catch (const InputError &e) {
    EXPECT_NE(std::string(e.what()).find("not a positive 32-bit GEMM dimension"), std::string::npos)
        << e.what();
  }
}

TEST(GemmPoint, SizePointIsSquareUnlessNOrKIsGiven) {
  EXPECT_EQ(plan_size_point(size_point(96, "fp32")).gemms.at(0), (GemmShape{96, 96, 96, 1}));
  EXPECT_EQ(plan_size_point(size_point(16, "fp32", 12288, 5376, 2)).gemms.at(0),
            (GemmShape{16, 12288, 5376, 2}));
  EXPECT_THROW(plan_size_point(size_point(-1, "fp32")), InputError);
  EXPECT_THROW(plan_size_point(size_point(1LL << 32, "fp32")), InputError);
}

TEST(GemmPoint, MetricsCountFlopsOverMedianTime) {
  Measurement m;
  m.time_s.median = 2e-3;
  m.time_s.min = 1e-3;
  GemmPlan plan;
  plan.gemms = {{1000, 1000, 1000, 1}};
  const auto j = gemm_metrics(m, plan, Dtype::fp32, 4.0);
  EXPECT_DOUBLE_EQ(j.at("flops_per_call").get<double>(), 2e9);
  EXPECT_DOUBLE_EQ(j.at("bytes_per_call").get<double>(), 12e6);
  EXPECT_DOUBLE_EQ(j.at("tflops").get<double>(), 1.0);
  EXPECT_DOUBLE_EQ(j.at("tflops_max").get<double>(), 2.0);
  EXPECT_DOUBLE_EQ(j.at("efficiency").get<double>(), 0.25);
  EXPECT_FALSE(gemm_metrics(m, plan, Dtype::fp32, 0).contains("efficiency"));
}

TEST(GemmPoint, SampledElementsAndOperands) {
  const auto s = sampled_elements(1000, 10, 1);
  EXPECT_EQ(s.size(), 10u);
  EXPECT_EQ(s.front(), 0);
  EXPECT_EQ(s.back(), 999);
  EXPECT_EQ(sampled_elements(5, 10, 1).size(), 5u);
  for (std::uint64_t i = 0; i < 10000; ++i) {
    const double v = operand_value(3, i);
    EXPECT_GE(std::abs(v), 0.5);
    EXPECT_LT(std::abs(v), 1.0);
  }
  EXPECT_EQ(operand_value(3, 7), operand_value(3, 7));
  EXPECT_NE(operand_value(3, 7), operand_value(4, 7));
}

class CpuBlasPoint : public testing::QuickRunContextTest {
protected:
};

TEST_F(CpuBlasPoint, RegistryHasBothKeys) {
  Registry r;
  register_gemm(r);
  ASSERT_NE(r.find("gemm.cpu_blas"), nullptr);
  ASSERT_NE(r.find("gemm.cpu_blas_size"), nullptr);
  std::vector<std::string> names;
  for (const auto &a : r.find("gemm.cpu_blas")->axes())
    names.push_back(a.name);
  for (const char *want : {"dtype", "model", "tp", "gemm", "pass", "seq", "peak_tflops"})
    EXPECT_NE(std::find(names.begin(), names.end(), want), names.end()) << want;
}

TEST_F(CpuBlasPoint, EveryDtypeRunsVerified) {
  if (!RAILGAUGE_HAS_OPENBLAS)
    GTEST_SKIP() << "built without OpenBLAS";
  auto bench = make_cpu_blas_size();
  for (const char *dtype : {"fp32", "fp64"}) {
    SCOPED_TRACE(dtype);
    const Point p = size_point(96, dtype, 80, 72, 2, 1.0);
    ASSERT_FALSE(bench->supported(ctx_, p));
    const Outcome out = bench->run(ctx_, p);
    ASSERT_EQ(out.status, Status::ok) << out.reason.value_or("");
    EXPECT_TRUE(out.metrics.at("verified").get<bool>());
    EXPECT_EQ(out.metrics.at("wrong_elements"), 0);
    EXPECT_EQ(out.metrics.at("verified_elements"), 256);
    EXPECT_GT(out.metrics.at("tflops").get<double>(), 0);
    EXPECT_GE(out.metrics.at("tflops_max").get<double>(), out.metrics.at("tflops").get<double>());
    EXPECT_DOUBLE_EQ(out.metrics.at("flops_per_call").get<double>(), 2.0 * 96 * 80 * 72 * 2);
    EXPECT_TRUE(out.metrics.contains("efficiency"));
    EXPECT_EQ(out.metrics.at("timer"), "host_steady_clock");
    cpu_set_t set;
    sched_getaffinity(0, sizeof(set), &set);
    EXPECT_EQ(out.derived_params.at("blas_threads"), CPU_COUNT(&set));
    EXPECT_EQ(out.derived_params.at("op"), "size");
    EXPECT_EQ(out.derived_params.at("n"), 80);
    // 96×80×72 operands fit in every cache many times over: calls rotate through copies that
    // hold 4 × L2 and the last-level cache (or the cap of 4096 sets stops them short).
    const std::string policy = out.derived_params.at("l2_policy");
    if (policy != "reused (cache sizes unknown)") {
      std::uint64_t l2 = 0, last = 0;
      for (const CacheLevel &c : topology_.caches())
        if (c.type != 'i') {
          l2 = c.depth == 2 ? c.size_bytes : l2;
          last = c.size_bytes;
        }
      const auto rotated = out.derived_params.at("operand_bytes_rotated").get<std::uint64_t>();
      EXPECT_GT(out.derived_params.at("operand_sets").get<int>(), 1);
      if (policy == "rotated") {
        EXPECT_GE(rotated, 4 * l2);
        EXPECT_GE(rotated, last);
      } else {
        EXPECT_EQ(policy, "rotated_partial");
        EXPECT_EQ(out.derived_params.at("operand_sets"), 4096);
      }
    }
  }
}

// bc copies B and C and leaves one A (a block's GEMM reads the activation just written), abc
// copies all three, none reuses one set; every one checks out. A typo is an input error.
TEST_F(CpuBlasPoint, RotateChoosesTheOperandsCopied) {
  if (!RAILGAUGE_HAS_OPENBLAS)
    GTEST_SKIP() << "built without OpenBLAS";
  auto bench = make_cpu_blas_size();
  const std::int64_t m = 96, n = 80, k = 72; // A 96×72, B 72×80, C 96×80, fp32
  const std::uint64_t a_bytes = m * k * 4, b_c_bytes = (k * n + m * n) * 4;
  for (const char *rotate : {"bc", "abc", "none"}) {
    SCOPED_TRACE(rotate);
    Point p = size_point(m, "fp32", n, k);
    p.set("rotate", std::string(rotate));
    const Outcome out = bench->run(ctx_, p);
    ASSERT_EQ(out.status, Status::ok) << out.reason.value_or("");
    EXPECT_TRUE(out.metrics.at("verified").get<bool>());
    const auto sets = out.derived_params.at("operand_sets").get<std::uint64_t>();
    const auto rotated = out.derived_params.at("operand_bytes_rotated").get<std::uint64_t>();
    if (std::string(rotate) == "none") {
      EXPECT_EQ(sets, 1u);
      EXPECT_EQ(out.derived_params.at("l2_policy"), "reused (rotate=none)");
    } else if (out.derived_params.at("l2_policy") != "reused (cache sizes unknown)") {
      EXPECT_GT(sets, 1u);
      EXPECT_EQ(rotated, sets * (std::string(rotate) == "bc" ? b_c_bytes : a_bytes + b_c_bytes));
    }
  }
  Point typo = size_point(m, "fp32", n, k);
  typo.set("rotate", std::string("b,c"));
  EXPECT_THROW(bench->run(ctx_, typo), InputError);
}

TEST_F(CpuBlasPoint, TpPointOfABmmRunsBothDgradGemms) {
  if (!RAILGAUGE_HAS_OPENBLAS)
    GTEST_SKIP() << "built without OpenBLAS";
  auto bench = make_cpu_blas();
  const Outcome out = bench->run(ctx_, cpu_tp_point("scores", "dgrad", 4, 64, "fp64"));
  ASSERT_EQ(out.status, Status::ok) << out.reason.value_or("");
  EXPECT_EQ(out.derived_params.at("op"), "scores.dgrad");
  EXPECT_EQ(out.derived_params.at("gemm_count"), 2);
  EXPECT_EQ(out.metrics.at("verified_elements"), 512);
  EXPECT_DOUBLE_EQ(out.metrics.at("flops_per_call").get<double>(), 2 * 2.0 * 64 * 64 * 64 * 4);
}

TEST_F(CpuBlasPoint, CorruptedOutputFailsThePoint) {
  if (!RAILGAUGE_HAS_OPENBLAS)
    GTEST_SKIP() << "built without OpenBLAS";
  auto bench = make_cpu_blas_size();
  bench->set_before_verify([](std::size_t gemm, void *c) {
    if (gemm == 0)
      static_cast<float *>(c)[0] += 1.0f;
  });
  const Outcome out = bench->run(ctx_, size_point(64, "fp32"));
  EXPECT_EQ(out.status, Status::failed);
  ASSERT_TRUE(out.reason);
  EXPECT_NE(out.reason->find("1 of 256 sampled output elements"), std::string::npos) << *out.reason;
  EXPECT_EQ(out.metrics.at("wrong_elements"), 1);
  EXPECT_FALSE(out.metrics.at("verified").get<bool>());
}

TEST_F(CpuBlasPoint, VerifyOffLeavesVerifiedFalse) {
  if (!RAILGAUGE_HAS_OPENBLAS)
    GTEST_SKIP() << "built without OpenBLAS";
  ctx_.set_verify(false);
  const Outcome out = make_cpu_blas_size()->run(ctx_, size_point(64, "fp64"));
  EXPECT_EQ(out.status, Status::ok);
  EXPECT_FALSE(out.metrics.at("verified").get<bool>());
}

// Under a multi-rank launch the ranks compute together: each record has the lockstep sampler and
// the same per-call times (the slowest rank's), and this rank's own times beside them.
TEST(CpuBlasRanks, RanksComputeTheirShareInLockstep) {
  if (!RAILGAUGE_HAS_OPENBLAS)
    GTEST_SKIP() << "built without OpenBLAS";
  MemoryStore store;
  const auto outs =
      testing::run_ranks_as_threads(2, store, testing::brief_measure_spec(), [](RunContext &ctx) {
        return make_cpu_blas()->run(ctx, cpu_tp_point("mlp_up", "fwd", 2));
      });
  for (const Outcome &out : outs) {
    ASSERT_EQ(out.status, Status::ok) << out.reason.value_or("");
    EXPECT_EQ(out.metrics.at("sampler"), "lockstep");
    EXPECT_EQ(out.metrics.at("lockstep").at("ranks"), 2);
    EXPECT_EQ(out.metrics.at("time_s"), outs[0].metrics.at("time_s"));
    EXPECT_LE(out.metrics.at("lockstep").at("own_time_s").at("median").get<double>(),
              out.metrics.at("time_s").at("median").get<double>());
    EXPECT_TRUE(out.metrics.at("verified").get<bool>());
  }
}

TEST_F(CpuBlasPoint, WaivesWhatCannotRunHere) {
  auto bench = make_cpu_blas();
  const auto heads = bench->supported(ctx_, cpu_tp_point("qkv", "fwd", 32));
  ASSERT_TRUE(heads);
  if (RAILGAUGE_HAS_OPENBLAS) {
    EXPECT_NE(heads->find("16 attention heads"), std::string::npos) << *heads;
    const auto bmm = bench->supported(ctx_, cpu_tp_point("scores", "wgrad", 1));
    ASSERT_TRUE(bmm);
    EXPECT_NE(bmm->find("no wgrad"), std::string::npos) << *bmm;
    Point huge = cpu_tp_point("mlp_up", "fwd", 1, 1 << 20);
    huge.set("hidden", std::int64_t{1} << 20);
    huge.set("heads", std::int64_t{1} << 10);
    const auto memory = bench->supported(ctx_, huge);
    ASSERT_TRUE(memory);
    EXPECT_NE(memory->find("GB"), std::string::npos) << *memory;
  } else {
    EXPECT_NE(heads->find("built without OpenBLAS"), std::string::npos);
  }
}

} // namespace
} // namespace railgauge::gemm
