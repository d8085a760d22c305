// The cuBLASLt backend on a real GPU (label gpu): every dtype's result agrees with the fp64
// reference within its bound, in both layouts and for a strided-batched BMM; a corrupted output
// fails the point; the record carries algorithms, rotation and telemetry; the burn passes on a
// healthy GPU. Fails, never skips, without a GPU.
#include <iostream>

#include <cuda_runtime_api.h>
#include <gtest/gtest.h>

#include "tests/support/device_upload.h"
#include "tests/support/quick_run_context.h"

#include "gemm/cuda/burn.h"
#include "gemm/cuda/cublaslt.h"
#include "harness/cuda/device.h"
#include "harness/run_context.h"

namespace railgauge::gemm {
namespace {

class CublasLtOnGpu : public testing::QuickRunContextTest {
protected:
  void SetUp() override {
    const auto why = gpu::cuda_unavailable_reason();
    ASSERT_FALSE(why.has_value()) << "these tests need a CUDA GPU: " << *why;
  }
  static Point size_point(const std::string &dtype, std::int64_t m, std::int64_t n, std::int64_t k,
                          std::int64_t batch = 1, const std::string &layout = "nt",
                          std::int64_t top_k = 4) {
    Point p;
    p.set("dtype", dtype);
    p.set("m", m);
    p.set("n", n);
    p.set("k", k);
    p.set("batch", batch);
    p.set("peak_tflops", 0.0);
    p.set("gpu", std::int64_t{0});
    p.set("layout", layout);
    p.set("top_k", top_k);
    return p;
  }
};

TEST_F(CublasLtOnGpu, EveryDtypeAndLayoutIsVerified) {
  auto bench = make_cublaslt_size();
  for (const char *dtype : {"bf16", "fp16", "fp8_e4m3", "tf32", "fp32"})
    for (const char *layout : {"nt", "nn", "tn"}) {
      SCOPED_TRACE(std::string(dtype) + " " + layout);
      const Point p = size_point(dtype, 1024, 768, 512, 1, layout);
      if (std::string(dtype) == "fp8_e4m3" && std::string(layout) != "nt") {
        EXPECT_TRUE(bench->supported(ctx_, p).has_value());
        continue;
      }
      ASSERT_FALSE(bench->supported(ctx_, p).has_value()) << *bench->supported(ctx_, p);
      Outcome out;
      try {
        out = bench->run(ctx_, p);
      } catch (const std::exception &e) { // the trace above names the dtype and layout
        ADD_FAILURE() << "threw: " << e.what();
        continue;
      }
      if (!out.metrics.value("refused_algos", nlohmann::json::array()).empty())
        std::cout << dtype << " " << layout << ": cublasLtMatmul refused "
                  << out.metrics.at("refused_algos").dump() << "\n";
      ASSERT_EQ(out.status, Status::ok) << out.reason.value_or("");
      EXPECT_TRUE(out.metrics.at("verified").get<bool>());
      EXPECT_EQ(out.metrics.at("wrong_elements"), 0);
      EXPECT_GT(out.metrics.at("verified_elements").get<int>(), 0);
      EXPECT_LE(out.metrics.at("worst_error_over_bound").get<double>(), 1.0);
      EXPECT_EQ(out.metrics.at("timer"), "cuda_event");
      EXPECT_GT(out.metrics.at("tflops").get<double>(), 0);
      EXPECT_GE(out.metrics.at("best_tflops").get<double>(),
                out.metrics.at("tflops").get<double>());
      EXPECT_FALSE(out.metrics.at("heuristic_algos").empty());
      EXPECT_TRUE(out.metrics.at("heuristic_algos")[0].contains("algo_id"));
      EXPECT_GE(out.derived_params.at("operand_sets").get<int>(), 1);
      EXPECT_FALSE(out.derived_params.at("l2_policy").get<std::string>().empty());
      EXPECT_TRUE(out.metrics.at("telemetry").contains("before"));
      EXPECT_FALSE(out.device.at("gpu").get<std::string>().empty());
    }
}

TEST_F(CublasLtOnGpu, StridedBatchedAndTransformerPointsAreVerified) {
  auto size = make_cublaslt_size();
  const Outcome bmm = size->run(ctx_, size_point("bf16", 512, 64, 512, 12));
  ASSERT_EQ(bmm.status, Status::ok) << bmm.reason.value_or("");
  EXPECT_TRUE(bmm.metrics.at("verified").get<bool>());

  auto tp = make_cublaslt();
  Point p;
  for (const auto &axis : tp->axes())
    p.set(axis.name, axis.defaults.front());
  p.set("model", std::string("llama3-70b"));
  p.set("seq", std::int64_t{1024});
  p.set("tp", std::int64_t{16}); // GQA with replicated kv heads
  p.set("gemm", std::string("scores"));
  p.set("pass", std::string("dgrad")); // two GEMMs
  const Outcome out = tp->run(ctx_, p);
  ASSERT_EQ(out.status, Status::ok) << out.reason.value_or("");
  EXPECT_TRUE(out.metrics.at("verified").get<bool>());
  EXPECT_EQ(out.metrics.at("heuristic_algos").size(), 2u);
  EXPECT_EQ(out.derived_params.at("op"), "scores.dgrad");
  // dQ = dS·K and dK = dSᵀ·Q, each in its training layout, both verified.
  EXPECT_EQ(out.derived_params.at("layout"), "nn+tn");
  EXPECT_EQ(out.derived_params.at("layouts_from"), "training");
  EXPECT_EQ(out.metrics.at("gemms")[1].at("layout"), "tn");
  // Every pass of a linear layer in its own layout: fwd nt, dgrad nn, wgrad tn.
  p.set("gemm", std::string("mlp_down"));
  for (const auto &[pass, layout] : {std::pair{"fwd", "nt"}, {"dgrad", "nn"}, {"wgrad", "tn"}}) {
    p.set("pass", std::string(pass));
    const Outcome linear = tp->run(ctx_, p);
    ASSERT_EQ(linear.status, Status::ok) << pass << ": " << linear.reason.value_or("");
    EXPECT_TRUE(linear.metrics.at("verified").get<bool>()) << pass;
    EXPECT_EQ(linear.derived_params.at("layout"), layout) << pass;
  }
}

TEST_F(CublasLtOnGpu, EfficiencyComesFromThePeakTable) {
  const gpu::CudaDeviceInfo info = gpu::cuda_device_info(0);
  auto bench = make_cublaslt_size();
  const Outcome out = bench->run(ctx_, size_point("bf16", 2048, 2048, 2048, 1, "nt", 1));
  ASSERT_EQ(out.status, Status::ok) << out.reason.value_or("");
  if (info.name.find("H100") != std::string::npos || info.name.find("H200") != std::string::npos) {
    ASSERT_TRUE(out.metrics.contains("efficiency")) << out.derived_params.dump();
    EXPECT_GT(out.metrics.at("efficiency").get<double>(), 0);
    EXPECT_LT(out.metrics.at("efficiency").get<double>(), 1.2) << "above the dense peak";
  }
}

TEST_F(CublasLtOnGpu, CorruptedOutputFailsThePoint) {
  auto bench = make_cublaslt_size();
  bench->set_before_verify([](std::size_t, void *c, std::uint64_t bytes) {
    // Flip an exponent bit of every bf16 element of the first 64 KiB: far outside any bound.
    std::vector<std::uint16_t> host(std::min<std::uint64_t>(bytes, 65536) / 2);
    // The benchmark's stream is not ordered with the legacy stream this copy runs on.
    ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
    ASSERT_EQ(cudaMemcpy(host.data(), c, host.size() * 2, cudaMemcpyDeviceToHost), cudaSuccess);
    for (auto &h : host)
      h ^= 0x2000;
    ASSERT_EQ(testing::upload_and_wait(c, host.data(), host.size() * 2), cudaSuccess);
  });
  const Outcome out = bench->run(ctx_, size_point("bf16", 256, 256, 256, 1, "nt", 1));
  EXPECT_EQ(out.status, Status::failed);
  ASSERT_TRUE(out.reason.has_value());
  EXPECT_NE(out.reason->find("fp64 reference"), std::string::npos) << *out.reason;
}

// A 2 s burn of a 2048³ GEMM in `dtype` on GPU 0 alone.
Outcome short_burn(RunContext &ctx, const char *dtype) {
  auto burn = make_burn();
  Point p;
  for (const auto &axis : burn->axes())
    p.set(axis.name, axis.defaults.front());
  p.set("dtype", std::string(dtype));
  p.set("m", std::int64_t{2048});
  p.set("duration_s", 2.0);
  p.set("gpu", std::int64_t{0});
  return burn->run(ctx, p);
}

TEST_F(CublasLtOnGpu, ShortBurnPassesOnAHealthyGpu) {
  const Outcome out = short_burn(ctx_, "bf16");
  ASSERT_EQ(out.status, Status::ok) << out.reason.value_or("");
  const auto &g = out.metrics.at("gpus").at(0);
  EXPECT_EQ(g.at("verdict"), "ok");
  EXPECT_GT(g.at("iterations").get<std::int64_t>(), 0);
  EXPECT_EQ(g.at("mismatched_elements"), 0);
  EXPECT_GT(g.at("tflops").get<double>(), 0);
}

// The burn-in's FP64 (cuBLASLt's DGEMM, CUBLAS_COMPUTE_64F) and TF32 burns: every result bit for
// bit against the first and the first against the fp64 reference, as the bf16 burn.
TEST_F(CublasLtOnGpu, ShortFp64AndTf32BurnsPassTheirDataCheck) {
  for (const char *dtype : {"fp64", "tf32"}) {
    SCOPED_TRACE(dtype);
    const Outcome out = short_burn(ctx_, dtype);
    ASSERT_EQ(out.status, Status::ok) << out.reason.value_or("");
    const auto &g = out.metrics.at("gpus").at(0);
    EXPECT_EQ(g.at("verdict"), "ok");
    EXPECT_GT(g.at("iterations").get<std::int64_t>(), 0);
    EXPECT_EQ(g.at("mismatched_elements"), 0);
    EXPECT_GT(g.at("reference_checked_elements").get<std::int64_t>(), 0);
    EXPECT_EQ(g.at("reference_wrong_elements"), 0);
  }
}

} // namespace
} // namespace railgauge::gemm
