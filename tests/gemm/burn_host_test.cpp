// The GEMM burn's host-side pieces, without a GPU: the comparator that catches silent data
// corruption bit for bit, and the burn's verdict over its GPUs.
#include <cstdint>
#include <cstring>
#include <string>
#include <tuple>

#include <gtest/gtest.h>

#include "gemm/cuda/burn.h"
#include "gemm/cuda/sdc_compare.h"
#include "records/across_gpu_figures.h"
#include "records/gemm_burn_figures.h"
#include "records/gemm_record.h"
#include "records/gpu_part.h"
#include "records/per_gpu_parts.h"

namespace railgauge::gemm {
namespace {

// ---- silent data corruption ---------------------------------------------------------------------

TEST(SdcComparator, AnyFlippedBitIsCaught) {
  const std::uint32_t bf16_one = 0x3f80, fp16_one = 0x3c00;
  const float x = 1.2345f;
  std::uint32_t fp32_bits = 0;
  std::memcpy(&fp32_bits, &x, sizeof x);
  const double y = 1.2345;
  std::uint64_t fp64_bits = 0;
  std::memcpy(&fp64_bits, &y, sizeof y);
  for (auto [format, value, width] :
       {std::tuple<OutputFormat, std::uint64_t, int>{OutputFormat::bf16, bf16_one, 16},
        {OutputFormat::fp16, fp16_one, 16},
        {OutputFormat::fp32, fp32_bits, 32},
        {OutputFormat::fp64, fp64_bits, 64}}) {
    EXPECT_FALSE(compare_element(format, value, value).mismatch);
    for (int bit = 0; bit < width; ++bit) {
      const ElementVerdict v = compare_element(format, value, value ^ (std::uint64_t{1} << bit));
      EXPECT_TRUE(v.mismatch) << "bit " << bit;
    }
  }
}

TEST(SdcComparator, NanAndInfAreNamed) {
  EXPECT_TRUE(compare_element(OutputFormat::bf16, 0x3f80, 0x7fc0).nan);
  EXPECT_TRUE(compare_element(OutputFormat::bf16, 0x3f80, 0x7f80).inf);
  EXPECT_TRUE(compare_element(OutputFormat::bf16, 0x3f80, 0xff80).inf);
  EXPECT_TRUE(compare_element(OutputFormat::fp16, 0x3c00, 0x7e00).nan);
  EXPECT_TRUE(compare_element(OutputFormat::fp16, 0x3c00, 0x7c00).inf);
  EXPECT_TRUE(compare_element(OutputFormat::fp32, 0x3f800000, 0x7fc00000).nan);
  EXPECT_TRUE(compare_element(OutputFormat::fp32, 0x3f800000, 0xff800000).inf);
  const ElementVerdict fine = compare_element(OutputFormat::fp32, 0x3f800000, 0x3f800000);
  EXPECT_FALSE(fine.nan || fine.inf || fine.mismatch);
  // A NaN that repeats bit for bit is still a NaN (the first result was NaN too).
  EXPECT_TRUE(compare_element(OutputFormat::bf16, 0x7fc0, 0x7fc0).nan);
  EXPECT_EQ(output_element_bytes(OutputFormat::fp32), 4);
  EXPECT_EQ(output_element_bytes(OutputFormat::bf16), 2);
  // fp64 (the FP64 burn): 11 exponent bits, 52 of mantissa
  EXPECT_TRUE(compare_element(OutputFormat::fp64, 0x3ff0000000000000, 0x7ff8000000000000).nan);
  EXPECT_TRUE(compare_element(OutputFormat::fp64, 0x3ff0000000000000, 0xfff0000000000000).inf);
  EXPECT_FALSE(compare_element(OutputFormat::fp64, 0x3ff0000000000000, 0x7fe0000000000000).inf)
      << "the largest finite double";
  EXPECT_TRUE(compare_element(OutputFormat::fp32, 0x3f800000, 0x7f800000).inf)
      << "the low 32 bits of a wide word, as before";
  EXPECT_EQ(output_element_bytes(OutputFormat::fp64), 8);
}

BurnGpuResult healthy(int index, double tflops) {
  BurnGpuResult g;
  g.index = index;
  g.name = "NVIDIA H100 80GB HBM3";
  g.uuid = "GPU-" + std::to_string(index);
  g.pci = "0000:1" + std::to_string(index) + ":00.0";
  g.iterations = 4800;
  g.reference_checked = 4096;
  g.tflops = tflops;
  g.tflops_min = tflops * 0.98;
  return g;
}

TEST(BurnVerdict, HealthyGpusPassAndTheSlowOneShows) {
  const Outcome out = burn_outcome({healthy(0, 700), healthy(1, 710), healthy(2, 560)}, 1e12);
  EXPECT_EQ(out.status, Status::ok);
  EXPECT_TRUE(out.metrics.at("verified").get<bool>());
  // Read through the types analysis reads them with.
  const auto across = records::AcrossGpuFigures::read(out.metrics, record::kBurnTflopsAcrossGpus);
  ASSERT_TRUE(across) << out.metrics.dump();
  EXPECT_EQ(across->slowest_gpu, 2);
  EXPECT_EQ(across->median, 700);
  EXPECT_EQ(across->max, 710);
  EXPECT_DOUBLE_EQ(across->slowest_vs_median, 0.8);
  EXPECT_EQ(out.metrics.at("gpus").size(), 3u);
  const auto third = record::GemmBurnGpuFigures::read(out.metrics.at(record::kGpus)[2]);
  ASSERT_TRUE(third);
  EXPECT_EQ(third->index, 2);
  EXPECT_EQ(third->tflops, 560);
  EXPECT_EQ(third->iterations, 4800);
  EXPECT_EQ(third->reference_checked, 4096);
  EXPECT_EQ(out.metrics.at("gpus")[0].at("verdict"), "ok");
  EXPECT_TRUE(out.device.empty()) << "several GPUs: no single device";
}

TEST(BurnVerdict, CorruptionFailsNamingGpuRepetitionAndCounts) {
  BurnGpuResult bad = healthy(5, 700);
  bad.mismatched_elements = 12;
  bad.nan_elements = 1;
  bad.bad_iterations = 2;
  bad.first_bad_iteration = 1234;
  BurnGpuResult broke = healthy(6, 0);
  broke.error = "cudaErrorECCUncorrectable";
  const Outcome out = burn_outcome({healthy(4, 700), bad, broke}, 1e12);
  EXPECT_EQ(out.status, Status::failed);
  ASSERT_TRUE(out.reason.has_value());
  for (const char *word : {"GPU 5", "GPU-5", "0000:15:00.0", "12 elements", "2 of 4800",
                           "repetition 1234", "1 NaN", "GPU 6", "cudaErrorECCUncorrectable"})
    EXPECT_NE(out.reason->find(word), std::string::npos) << word << " in " << *out.reason;
  EXPECT_EQ(out.reason->find("GPU 4 "), std::string::npos) << "the healthy GPU is not named";
  EXPECT_EQ(out.metrics.at("gpus")[1].at("verdict"), "failed");
  EXPECT_EQ(out.metrics.at("gpus")[2].at("verdict"), "error");
  EXPECT_FALSE(out.metrics.at("verified").get<bool>());
}

TEST(BurnVerdict, WrongFromTheStartFailsAndABrokenGpuIsAnError) {
  BurnGpuResult wrong = healthy(0, 700);
  wrong.reference_wrong = 7;
  const Outcome failed = burn_outcome({wrong}, 1e12);
  EXPECT_EQ(failed.status, Status::failed);
  EXPECT_NE(failed.reason->find("fp64 reference"), std::string::npos) << *failed.reason;
  EXPECT_EQ(failed.device.at("gpu"), "GPU-0");
  BurnGpuResult broke = healthy(1, 0);
  broke.error = "boom";
  const Outcome error = burn_outcome({healthy(0, 700), broke}, 1e12);
  EXPECT_EQ(error.status, Status::error);
  EXPECT_NE(error.reason->find("boom"), std::string::npos);
  EXPECT_EQ(burn_outcome({}, 1).status, Status::error);
}

// Each GPU's object reads back through records::GpuPart, as per_gpu_parts and the burn-in's
// table and report read it.
TEST(BurnVerdict, EachGpusObjectReadsBackAsAGpuPart) {
  BurnGpuResult g = healthy(3, 700);
  g.settle_s = 2.5;
  g.elapsed_s = 60.5;
  g.series = nlohmann::json::array({{{"t_s", 1.0}, {"tflops", 700.0}}});
  g.telemetry = {{"available", false}};
  const Outcome out = burn_outcome({g}, 1e12);
  Record r;
  r.key = record::kBurn;
  r.metrics = out.metrics;
  r.status = out.status;
  const auto parts = records::per_gpu_parts(r);
  ASSERT_EQ(parts.size(), 1u);
  records::GpuPart expected;
  expected.gpu = 3;
  expected.uuid = "GPU-3";
  expected.pci = "0000:13:00.0";
  expected.name = g.name;
  expected.verdict = Status::ok;
  expected.settle_s = 2.5;
  expected.elapsed_s = 60.5;
  expected.series = g.series;
  expected.telemetry = g.telemetry;
  EXPECT_EQ(records::GpuPart::read(parts[0].metrics), expected);
  EXPECT_EQ(parts[0].params.at("gpu"), 3);
}

} // namespace
} // namespace railgauge::gemm
