// block.transformer_tp_gpu on this machine's GPUs, one process driving all of them (label gpu):
// the block runs, every step has its phase, every GEMM and collective output is checked, and a
// corrupted GEMM output fails the point. Fails, never skips, without a GPU.
#include <cuda_runtime_api.h>
#include <gtest/gtest.h>

#include "tests/support/device_upload.h"
#include "tests/support/quick_run_context.h"

#include "block/tp_block_plan.h"
#include "block/transformer_tp_gpu.h"
#include "gemm/model_axes.h"
#include "harness/cuda/device.h"

namespace railgauge::block {
namespace {

class BlockOnGpus : public testing::QuickRunContextTest {
protected:
  void SetUp() override {
    const auto why = gpu::cuda_unavailable_reason();
    ASSERT_FALSE(why.has_value()) << "these tests need a CUDA GPU: " << *why;
  }
  // A small custom model (h 1536, 24 heads, s 512, ffn 4h) that 1, 2, 3, 4, 6 and 8 GPUs split.
  static Point small_block(const Benchmark &bench, std::int64_t sequence_parallel) {
    Point p;
    for (const auto &a : bench.axes())
      p.set(a.name, a.defaults.front());
    p.set("model", std::string("custom"));
    p.set("hidden", std::int64_t{1536});
    p.set("heads", std::int64_t{24});
    p.set("seq", std::int64_t{512});
    p.set("sequence_parallel", sequence_parallel);
    p.set("iterations", std::int64_t{5});
    p.set("warmup", std::int64_t{1});
    return p;
  }
};

TEST_F(BlockOnGpus, EveryStepIsTimedAndChecked) {
  auto bench = make_transformer_tp_gpu(std::make_shared<GpuBlockTestHooks>());
  const int tp = gpu::cuda_device_count();
  for (std::int64_t sp : {0, 1}) {
    SCOPED_TRACE("sequence_parallel " + std::to_string(sp));
    const Point p = small_block(*bench, sp);
    ASSERT_FALSE(bench->supported(ctx_, p).has_value()) << *bench->supported(ctx_, p);
    const Outcome out = bench->run(ctx_, p);
    ASSERT_EQ(out.status, Status::ok) << out.reason.value_or("");
    EXPECT_TRUE(out.metrics.at("verified").get<bool>());
    EXPECT_EQ(out.metrics.at("wrong_elements"), 0);
    EXPECT_GT(out.metrics.at("time_s").at("median").get<double>(), 0);
    EXPECT_GT(out.metrics.at("gemm_time_s").get<double>(), 0);
    // Each rank's phases add up to its block: the two kinds' sums stay within the block's time
    // (a sum of per-step maxima over GPUs would not, where collectives absorb the GPUs' skew).
    EXPECT_LE(out.metrics.at("gemm_time_s").get<double>() +
                  out.metrics.at("collective_time_s").get<double>(),
              1.1 * out.metrics.at("time_s").at("median").get<double>());
    const auto steps = tp_block_steps(gemm::point_model(p), tp, sp != 0);
    ASSERT_EQ(out.metrics.at("phases").size(), steps.size());
    for (const auto &phase : out.metrics.at("phases"))
      EXPECT_GT(phase.at("time_s").get<double>(), 0) << phase.dump();
    if (tp == 1) {
      EXPECT_EQ(out.metrics.at("collective_time_s").get<double>(), 0);
    }
    EXPECT_EQ(out.derived_params.at("tp"), tp);
    EXPECT_EQ(out.derived_params.at("dtype"), "bf16");
  }
}

TEST_F(BlockOnGpus, CorruptedGemmOutputFailsThePoint) {
  auto hooks = std::make_shared<GpuBlockTestHooks>();
  bool corrupted = false;
  hooks->before_check = [&](void *output, std::uint64_t bytes, int device) {
    if (corrupted)
      return;
    corrupted = true;
    // Flip an exponent bit of every bf16 element of the first 64 KiB: far outside any bound.
    ASSERT_EQ(cudaSetDevice(device), cudaSuccess);
    ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
    std::vector<std::uint16_t> host(std::min<std::uint64_t>(bytes, 65536) / 2);
    ASSERT_EQ(cudaMemcpy(host.data(), output, host.size() * 2, cudaMemcpyDeviceToHost),
              cudaSuccess);
    for (auto &h : host)
      h ^= 0x2000;
    ASSERT_EQ(testing::upload_and_wait(output, host.data(), host.size() * 2), cudaSuccess);
  };
  auto bench = make_transformer_tp_gpu(hooks);
  const Outcome out = bench->run(ctx_, small_block(*bench, 0));
  EXPECT_TRUE(corrupted);
  EXPECT_EQ(out.status, Status::failed);
  ASSERT_TRUE(out.reason.has_value());
  EXPECT_NE(out.reason->find("fp64 reference"), std::string::npos) << *out.reason;
  EXPECT_GT(out.metrics.at("wrong_gemm_elements").get<std::int64_t>(), 0);
}

} // namespace
} // namespace railgauge::block
