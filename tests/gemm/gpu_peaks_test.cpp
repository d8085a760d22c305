// The GPU peak table: the shipped file loads and names every SKU the way CUDA does; lookups by
// device name pick the specific entry first; bad tables are input errors naming file:line.
#include <gtest/gtest.h>

#include "gemm/gpu_peaks.h"
#include "harness/error.h"
#include "railgauge/config.h"

namespace railgauge::gemm {
namespace {

const std::string kShipped = std::string(RAILGAUGE_SOURCE_DIR) + "/results/peaks/gpu_peaks.yaml";

TEST(GpuPeaks, ShippedTableLoadsAndMatchesCudaDeviceNames) {
  const GpuPeakTable t = load_gpu_peaks(kShipped);
  ASSERT_GE(t.gpus.size(), 4u);
  // CUDA's names of these SKUs, as cudaGetDeviceProperties reports them.
  const GpuPeak *sxm = find_gpu_peak(t, "NVIDIA H100 80GB HBM3");
  const GpuPeak *pcie = find_gpu_peak(t, "NVIDIA H100 PCIe");
  const GpuPeak *nvl = find_gpu_peak(t, "NVIDIA H100 NVL");
  const GpuPeak *h200 = find_gpu_peak(t, "NVIDIA H200");
  ASSERT_TRUE(sxm && pcie && nvl && h200);
  EXPECT_EQ(sxm->name, "H100 SXM 80GB");
  EXPECT_EQ(pcie->name, "H100 PCIe 80GB") << "the specific entry must win over 'H100'";
  EXPECT_EQ(nvl->name, "H100 NVL 94GB");
  EXPECT_EQ(sxm->tflops_of(Dtype::bf16), 989);
  EXPECT_EQ(sxm->tflops_of(Dtype::fp8_e4m3), 1979);
  EXPECT_EQ(h200->tflops_of(Dtype::bf16), 989);
  EXPECT_LT(*pcie->tflops_of(Dtype::bf16), *sxm->tflops_of(Dtype::bf16));
  for (const auto &g : t.gpus) {
    SCOPED_TRACE(g.name);
    EXPECT_FALSE(g.source.empty());
    EXPECT_NE(g.where.find("gpu_peaks.yaml:"), std::string::npos) << g.where;
    // Every dtype the GPU backend runs has a peak, and fp8 is twice bf16 (dense, Hopper).
    for (Dtype d : {Dtype::bf16, Dtype::fp16, Dtype::fp8_e4m3, Dtype::tf32, Dtype::fp32})
      EXPECT_TRUE(g.tflops_of(d).has_value()) << to_string(d);
    EXPECT_NEAR(*g.tflops_of(Dtype::fp8_e4m3), 2 * *g.tflops_of(Dtype::bf16), 2);
  }
  EXPECT_EQ(find_gpu_peak(t, "NVIDIA A100-SXM4-80GB"), nullptr);
  EXPECT_EQ(find_gpu_peak(t, ""), nullptr);
  // Other SKUs whose names contain a listed one get no peak rather than the wrong one.
  EXPECT_EQ(find_gpu_peak(t, "NVIDIA H200 NVL"), nullptr);
  EXPECT_EQ(find_gpu_peak(t, "NVIDIA GH200 480GB"), nullptr);
}

TEST(GpuPeaks, UnlessRulesAnEntryOutAndMustBeAList) {
  const std::string head = "schema: railgauge.gpu_peaks/1\ngpus:\n";
  const GpuPeakTable t = parse_gpu_peaks(head + "  - match: \"X1\"\n    unless: [\"X1 Lite\"]\n"
                                                "    name: X1\n    source: s\n"
                                                "    tflops: {bf16: 1}\n",
                                         "peaks.yaml");
  ASSERT_NE(find_gpu_peak(t, "Acme X1 Pro"), nullptr);
  EXPECT_EQ(find_gpu_peak(t, "Acme X1 Lite"), nullptr);
  try {
    parse_gpu_peaks(head + "  - match: \"X1\"\n    unless: \"Lite\"\n    name: X1\n"
                           "    source: s\n    tflops: {bf16: 1}\n",
                    "peaks.yaml");
    FAIL() << "a scalar `unless` was accepted";
  } catch (const InputError &e) {
    EXPECT_NE(std::string(e.what()).find("`unless` is not a list"), std::string::npos) << e.what();
  }
}

TEST(GpuPeaks, BadTablesNameTheLine) {
  const auto problem = [](const std::string &yaml) -> std::string {
    try {
      parse_gpu_peaks(yaml, "peaks.yaml");
    } catch (const InputError &e) {
      return e.what();
    }
    return "";
  };
  const std::string head = "schema: railgauge.gpu_peaks/1\ngpus:\n";
  EXPECT_NE(problem("gpus: []\n").find("schema"), std::string::npos);
  EXPECT_NE(problem(head + "  - match: X\n    name: X\n    source: s\n    tflops: {bf17: 3}\n")
                .find("peaks.yaml:6"),
            std::string::npos)
      << "unknown dtype, at its line";
  EXPECT_NE(problem(head + "  - match: X\n    name: X\n    source: s\n    tflops: {bf16: -3}\n")
                .find("not a positive number"),
            std::string::npos);
  EXPECT_NE(problem(head + "  - match: X\n    name: X\n    source: s\n    tflops: {bf16: abc}\n")
                .find("not a positive number"),
            std::string::npos);
  EXPECT_NE(problem(head + "  - name: X\n    source: s\n    tflops: {bf16: 3}\n").find("`match`"),
            std::string::npos);
  EXPECT_NE(problem(head + "  - match: X\n    name: X\n    source: s\n").find("tflops"),
            std::string::npos);
  EXPECT_NE(problem(head + "  - match: [\n").find("peaks.yaml:"), std::string::npos);
  EXPECT_EQ(problem(head + "  - match: X\n    name: X\n    source: s\n    tflops: {bf16: 3.5}\n"),
            "");
}

TEST(GpuPeaks, MissingFileIsAnInputErrorWithTheFix) {
  try {
    load_gpu_peaks("/nonexistent/gpu_peaks.yaml");
    FAIL() << "no error";
  } catch (const InputError &e) {
    EXPECT_NE(std::string(e.what()).find("RAILGAUGE_GPU_PEAKS"), std::string::npos) << e.what();
  }
}

} // namespace
} // namespace railgauge::gemm
