// The cuBLASLt backend's host-side pieces, without a GPU: layout and its column-major mapping,
// dtype and capability rules, operand rotation, options and axes, the peak choice, telemetry
// parsing, and waivers where CUDA cannot run. The bound a result is checked against is
// verify_bound_test.cpp; the SDC comparator and the burn verdict burn_host_test.cpp.
#include <algorithm>
#include <cstring>
#include <filesystem>
#include <map>

#include <cmath>
#include <unistd.h>

#include <fmt/format.h>

#include <gtest/gtest.h>

#include "gemm/cuda/burn.h"
#include "gemm/cuda/cublaslt.h"
#include "gemm/cuda/cublaslt_plan.h"
#include "gemm/cuda/sdc_compare.h"
#include "gemm/register_gemm.h"
#include "gemm/verify_bound.h"
#include "harness/cuda/device.h"
#include "harness/data_paths.h"
#include "harness/error.h"
#include "harness/inventory/gpu_telemetry.h"
#include "harness/registry.h"
#include "harness/run_context.h"
#include "railgauge/config.h"

namespace railgauge::gemm {
namespace {

// ---- layout ---------------------------------------------------------------------------------

TEST(CublasLtLayout, NtIsColumnMajorTnWithBothOperandsKContiguous) {
  const GemmShape s{2048, 4608, 12288, 1}; // GPT-3 QKV fwd at t = 8
  const LtCall c = lt_call(s, Layout::nt);
  EXPECT_TRUE(c.transpose_a);
  EXPECT_FALSE(c.transpose_b);
  EXPECT_EQ(c.m, 4608); // cuBLASLt's m is our N
  EXPECT_EQ(c.n, 2048);
  EXPECT_EQ(c.k, 12288);
  // cuBLASLt's A = our Bᵀ [N×K] row-major = column-major K×N, ld K.
  EXPECT_EQ(c.a.rows, 12288);
  EXPECT_EQ(c.a.cols, 4608);
  EXPECT_EQ(c.a.ld, 12288);
  // cuBLASLt's B = our A [M×K] row-major = column-major K×M, ld K.
  EXPECT_EQ(c.b.rows, 12288);
  EXPECT_EQ(c.b.cols, 2048);
  EXPECT_EQ(c.b.ld, 12288);
  // C [M×N] row-major = column-major N×M, ld N.
  EXPECT_EQ(c.c.rows, 4608);
  EXPECT_EQ(c.c.cols, 2048);
  EXPECT_EQ(c.c.ld, 4608);
}

TEST(CublasLtLayout, NnAndBatchStrides) {
  const GemmShape s{2048, 128, 2048, 12}; // scores dgrad dQ at t = 8: (s, d, s), batch b·a/t
  const LtCall c = lt_call(s, Layout::nn);
  EXPECT_FALSE(c.transpose_a);
  EXPECT_FALSE(c.transpose_b);
  EXPECT_EQ(c.a.rows, 128); // our B [K×N] row-major = column-major N×K, ld N
  EXPECT_EQ(c.a.cols, 2048);
  EXPECT_EQ(c.a.ld, 128);
  EXPECT_EQ(c.batch, 12);
  EXPECT_EQ(c.a.batch_stride, 2048 * 128);
  EXPECT_EQ(c.b.batch_stride, 2048 * 2048);
  EXPECT_EQ(c.c.batch_stride, 2048 * 128);
}

TEST(CublasLtLayout, Fp8NeedsNtOnHopper) {
  EXPECT_FALSE(layout_problem(Dtype::fp8_e4m3, Layout::nt).has_value());
  const auto why = layout_problem(Dtype::fp8_e4m3, Layout::nn);
  ASSERT_TRUE(why.has_value());
  EXPECT_NE(why->find("layout=nt"), std::string::npos) << *why;
  for (Dtype d : {Dtype::bf16, Dtype::fp16, Dtype::tf32, Dtype::fp32})
    for (Layout l : {Layout::nt, Layout::nn, Layout::tn})
      EXPECT_FALSE(layout_problem(d, l).has_value()) << to_string(d) << " " << to_string(l);
  EXPECT_EQ(parse_layout("nn", "x"), Layout::nn);
  EXPECT_THROW(parse_layout("tt", "layout"), InputError);
}

TEST(CublasLtDtypes, CapabilityRules) {
  EXPECT_FALSE(dtype_capability_problem(Dtype::fp8_e4m3, 90).has_value());
  EXPECT_FALSE(dtype_capability_problem(Dtype::fp8_e4m3, 89).has_value());
  EXPECT_TRUE(dtype_capability_problem(Dtype::fp8_e4m3, 80).has_value());
  EXPECT_TRUE(dtype_capability_problem(Dtype::bf16, 75).has_value());
  EXPECT_FALSE(dtype_capability_problem(Dtype::bf16, 80).has_value());
  EXPECT_FALSE(dtype_capability_problem(Dtype::fp16, 70).has_value());
  // cuBLASLt's DGEMM (CUBLAS_COMPUTE_64F, CUDA_R_64F): once refused, the burn-in's FP64 stress
  EXPECT_FALSE(dtype_capability_problem(Dtype::fp64, 90).has_value());
  EXPECT_FALSE(dtype_capability_problem(Dtype::fp64, 60).has_value());
  EXPECT_NE(dtype_capability_problem(Dtype::fp8_e4m3, 80)->find("8.9"), std::string::npos);
}

// ---- operands -------------------------------------------------------------------------------

TEST(CublasLtOperands, SetBytesCountEveryOperandAligned) {
  const GemmShape s{3, 5, 7, 2};
  // bf16: A 2·3·7·2 = 84 -> 256, B 2·7·5·2 = 140 -> 256, C 2·3·5·2 = 60 -> 256.
  EXPECT_EQ(operand_set_bytes(s, Dtype::bf16), 768u);
  const GemmShape big{8192, 8192, 8192, 1};
  EXPECT_EQ(operand_set_bytes(big, Dtype::fp8_e4m3), 8192ull * 8192 * (1 + 1 + 2));
  EXPECT_EQ(operand_set_bytes(big, Dtype::tf32), 8192ull * 8192 * 12);
}

TEST(CublasLtOperands, RotationReachesFourTimesL2OrSaysWhy) {
  const std::uint64_t l2 = 50 << 20; // H100
  const std::uint64_t budget = 40ull << 30;
  const auto big = operand_rotation(805306368, l2, budget); // 8192³ bf16: 384 MiB
  EXPECT_EQ(big.sets, 1);
  EXPECT_EQ(big.policy, "single_set");
  const auto mid = operand_rotation(24 << 20, l2, budget);
  EXPECT_EQ(mid.policy, "rotated");
  EXPECT_EQ(mid.sets, 9); // ceil(200 MiB / 24 MiB)
  EXPECT_GE(mid.total_bytes, static_cast<std::uint64_t>(kRotationL2Multiple * l2));
  const auto tiny = operand_rotation(3 << 10, l2, budget);
  EXPECT_EQ(tiny.sets, kMaxOperandSets);
  EXPECT_EQ(tiny.policy, "rotated_partial");
  const auto tight = operand_rotation(24 << 20, l2, 48 << 20);
  EXPECT_EQ(tight.sets, 2);
  EXPECT_EQ(tight.policy, "rotated_partial");
  EXPECT_EQ(operand_rotation(24 << 20, l2, 0).sets, 1) << "at least the one set";
}

// ---- axes, options, registration -------------------------------------------------------------

Point lt_tp_point(const std::string &dtype, const std::string &layout, std::int64_t tp = 8,
                  const std::string &gemm = "qkv", const std::string &pass = "fwd") {
  Point p;
  p.set("dtype", dtype);
  p.set("model", std::string("gpt3-175b"));
  p.set("tp", tp);
  p.set("gemm", gemm);
  p.set("pass", pass);
  for (const char *name : {"seq", "micro_batch", "hidden", "heads", "kv_heads", "ffn"})
    p.set(name, std::int64_t{0});
  p.set("swiglu", std::int64_t{-1});
  p.set("peak_tflops", 0.0);
  p.set("gpu", std::int64_t{0});
  p.set("layout", layout);
  p.set("top_k", std::int64_t{8});
  return p;
}

// The default TP sweep holds the shapes where the fall with t shows: Llama-3 70B, micro-batch 1
// and 2, seq 2048 and 4096, t = 1..32 (4 x 6 x 18 = 432 points).
TEST(CublasLtAxes, DefaultSweepIsTheSmallerModelAtFewTokens) {
  std::map<std::string, std::vector<AxisValue>> defaults;
  std::size_t points = 1;
  for (const auto &a : make_cublaslt()->axes()) {
    defaults[a.name] = a.defaults;
    points *= a.defaults.size();
  }
  EXPECT_EQ(defaults.at("model"), std::vector<AxisValue>{std::string("llama3-70b")});
  EXPECT_EQ(defaults.at("seq"), (std::vector<AxisValue>{std::int64_t{2048}, std::int64_t{4096}}));
  EXPECT_EQ(defaults.at("micro_batch"), (std::vector<AxisValue>{std::int64_t{1}, std::int64_t{2}}));
  EXPECT_EQ(defaults.at("tp").size(), 6u);
  EXPECT_EQ(points, 432u);
}

TEST(CublasLtAxes, KeysAxesAndOptions) {
  Registry registry;
  register_gemm(registry);
  for (const char *key : {"gemm.cublaslt", "gemm.cublaslt_size", "gemm.burn"})
    EXPECT_EQ(registry.match(key).size(), 1u) << key;
  auto bench = make_cublaslt();
  std::vector<std::string> names;
  for (const auto &a : bench->axes())
    names.push_back(a.name);
  for (const char *want : {"dtype", "model", "tp", "gemm", "pass", "gpu", "layout", "top_k",
                           "kv_heads", "ffn", "swiglu", "peak_tflops"})
    EXPECT_NE(std::find(names.begin(), names.end(), want), names.end()) << want;

  const CublasLtOptions o = cublaslt_options(lt_tp_point("fp8_e4m3", "nt"));
  EXPECT_EQ(o.dtype, Dtype::fp8_e4m3);
  EXPECT_EQ(o.layout, Layout::nt);
  EXPECT_EQ(o.top_k, 8);
  Point bad = lt_tp_point("bf16", "nt");
  bad.set("top_k", std::int64_t{0});
  EXPECT_THROW(cublaslt_options(bad), InputError);
  // Records carry model, layer (gemm), pass, t and M, N, K.
  const GemmPlan plan = bench->plan(lt_tp_point("bf16", "nt"));
  EXPECT_EQ(plan.derived.at("op"), "qkv.fwd");
  EXPECT_EQ(plan.derived.at("m"), 2048);
  EXPECT_EQ(plan.derived.at("n"), 4608);
  EXPECT_EQ(plan.derived.at("k"), 12288);

  // The TP key's layout defaults to what training runs: each GEMM its own, fp8 all nt; the size
  // key defaults to nt and has no "training".
  for (const auto &a : bench->axes())
    if (a.name == "layout") {
      EXPECT_EQ(std::get<std::string>(a.defaults.front()), "training");
    }
  for (const auto &a : make_cublaslt_size()->axes())
    if (a.name == "layout") {
      EXPECT_EQ(std::get<std::string>(a.defaults.front()), "nt");
      EXPECT_EQ(std::find(a.choices.begin(), a.choices.end(), "training"), a.choices.end());
    }
  const auto layouts_of = [&](const std::string &dtype, const std::string &layout,
                              const std::string &gemm, const std::string &pass) {
    const Point p = lt_tp_point(dtype, layout, 8, gemm, pass);
    return gemm_layouts(cublaslt_options(p), bench->plan(p));
  };
  EXPECT_FALSE(cublaslt_options(lt_tp_point("bf16", "training")).layout.has_value());
  EXPECT_EQ(layouts_of("bf16", "training", "qkv", "wgrad"), std::vector<Layout>{Layout::tn});
  EXPECT_EQ(layouts_of("bf16", "training", "context", "dgrad"),
            (std::vector<Layout>{Layout::nt, Layout::tn}));
  EXPECT_EQ(layouts_of("fp8_e4m3", "training", "qkv", "dgrad"), std::vector<Layout>{Layout::nt});
  EXPECT_EQ(layouts_of("bf16", "nn", "context", "dgrad"),
            (std::vector<Layout>{Layout::nn, Layout::nn}));
}

TEST(CublasLtAxes, BadPointsWaiveWithTheReasonEverywhere) {
  auto bench = make_cublaslt();
  Topology topology = Topology::load_this_machine();
  GBenchSampler sampler;
  RunContext ctx(topology, sampler, "t", 0);
  // Reasons that hold with or without a GPU come before CUDA's own.
  for (const auto &[point, words] :
       {std::pair{lt_tp_point("fp8_e4m3", "nn"), "layout=nt"},
        std::pair{lt_tp_point("bf16", "nt", 64), "does not divide"},
        std::pair{lt_tp_point("bf16", "nt", 8, "scores", "wgrad"), "no wgrad"}}) {
    const auto why = bench->supported(ctx, point);
    ASSERT_TRUE(why.has_value());
    EXPECT_NE(why->find(words), std::string::npos) << *why;
    Outcome out;
    ASSERT_NO_THROW(out = bench->run(ctx, point));
    EXPECT_EQ(out.status, Status::waived);
  }
}

TEST(CublasLtAxes, WithoutCudaEveryKeyWaivesWithTheCudaReason) {
  const auto why = gpu::cuda_unavailable_reason();
  if (!why)
    GTEST_SKIP() << "a CUDA device is usable here; cublaslt_gpu_tests (label gpu) cover it";
  Topology topology = Topology::load_this_machine();
  GBenchSampler sampler;
  RunContext ctx(topology, sampler, "t", 0);
  auto bench = make_cublaslt();
  const Outcome out = bench->run(ctx, lt_tp_point("bf16", "nt"));
  EXPECT_EQ(out.status, Status::waived);
  EXPECT_EQ(out.reason, why);
  auto burn = make_burn();
  Point p;
  for (const auto &axis : burn->axes())
    p.set(axis.name, axis.defaults.front());
  EXPECT_EQ(burn->supported(ctx, p), why);
  EXPECT_EQ(burn->run(ctx, p).status, Status::waived);
}

TEST(BurnAxes, OptionsResolveSquareAndEveryGpu) {
  auto burn = make_burn();
  Point p;
  for (const auto &axis : burn->axes())
    p.set(axis.name, axis.defaults.front());
  const BurnOptions o = burn_options(p, 8);
  EXPECT_EQ(o.shape, (GemmShape{8192, 8192, 8192, 1}));
  EXPECT_EQ(o.gpus.size(), 8u);
  EXPECT_EQ(o.dtype, Dtype::bf16);
  // The burn-in's FP64 and TF32 stress run through the same point.
  for (const char *dtype : {"fp64", "tf32"}) {
    p.set("dtype", std::string(dtype));
    EXPECT_EQ(to_string(burn_options(p, 8).dtype), dtype);
  }
  p.set("dtype", std::string("bf16"));
  p.set("gpu", std::int64_t{3});
  EXPECT_EQ(burn_options(p, 8).gpus, std::vector<int>{3});
  p.set("duration_s", 0.0);
  EXPECT_THROW(burn_options(p, 8), InputError);
}

// ---- peak choice ------------------------------------------------------------------------------

TEST(CublasLtPeak, AxisThenTableThenWhyNot) {
  const std::string table = std::string(RAILGAUGE_SOURCE_DIR) + "/results/peaks/gpu_peaks.yaml";
  const PeakChoice axis = choose_gpu_peak(500, table, "NVIDIA H100 80GB HBM3", Dtype::bf16);
  EXPECT_EQ(axis.tflops, 500);
  EXPECT_EQ(axis.source, "axis peak_tflops");
  const PeakChoice h100 = choose_gpu_peak(0, table, "NVIDIA H100 80GB HBM3", Dtype::fp8_e4m3);
  EXPECT_EQ(h100.tflops, 1979);
  EXPECT_EQ(h100.sku, "H100 SXM 80GB");
  EXPECT_NE(h100.source.find("gpu_peaks.yaml:"), std::string::npos) << h100.source;
  const PeakChoice other = choose_gpu_peak(0, table, "NVIDIA A10", Dtype::bf16);
  EXPECT_EQ(other.tflops, 0);
  EXPECT_NE(other.source.find("none:"), std::string::npos);
  const PeakChoice missing = choose_gpu_peak(0, "/nonexistent.yaml", "NVIDIA H100", Dtype::bf16);
  EXPECT_EQ(missing.tflops, 0);
  EXPECT_NE(missing.source.find("cannot read"), std::string::npos) << missing.source;
  // A record names no path of the machine that wrote it (issue 44).
  for (const auto *choice : {&h100, &other, &missing})
    EXPECT_EQ(choice->source.find(RAILGAUGE_SOURCE_DIR), std::string::npos) << choice->source;
  EXPECT_EQ(missing.source.rfind("none: nonexistent.yaml: cannot read", 0), 0) << missing.source;
}

// The peak table is named relative to the data directory, which the record says separately.
TEST(CublasLtPeak, TableIsNamedRelativeToTheDataDirectory) {
  const auto data =
      std::filesystem::temp_directory_path() / fmt::format("railgauge_peak_data_{}", ::getpid());
  std::filesystem::create_directories(data / "peaks");
  std::filesystem::copy_file(std::string(RAILGAUGE_SOURCE_DIR) + "/results/peaks/gpu_peaks.yaml",
                             data / "peaks" / "gpu_peaks.yaml",
                             std::filesystem::copy_options::overwrite_existing);
  ::setenv(kDataDirEnv, data.c_str(), 1);
  const PeakChoice in_data = choose_gpu_peak(0, (data / "peaks" / "gpu_peaks.yaml").string(),
                                             "NVIDIA H100 80GB HBM3", Dtype::bf16);
  ::unsetenv(kDataDirEnv);
  std::filesystem::remove_all(data);
  EXPECT_EQ(in_data.tflops, 989);
  EXPECT_EQ(in_data.source.rfind("peaks/gpu_peaks.yaml:", 0), 0) << in_data.source;
  EXPECT_EQ(in_data.table_origin, "data directory (RAILGAUGE_DATA_DIR)");
}

// ---- telemetry --------------------------------------------------------------------------------

TEST(GpuTelemetry, PicksTheGpuByUuidAndFlagsThrottling) {
  const nlohmann::json nvml = {{"available", true},
                               {"gpus",
                                {{{"uuid", "GPU-a"},
                                  {"sm_clock_mhz", {{"current", 1980}, {"max", 1980}}},
                                  {"mem_clock_mhz", {{"current", 2619}, {"max", 2619}}},
                                  {"power_usage_w", 650.5},
                                  {"power_limit_w", 700.0},
                                  {"temperature_c", 61},
                                  {"clocks_event_reasons", {"sw_power_cap"}}},
                                 {{"uuid", "GPU-b"},
                                  {"sm_clock_mhz", {{"current", 345}, {"max", 1980}}},
                                  {"power_usage_w", nullptr},
                                  {"clocks_event_reasons", {"gpu_idle"}}}}}};
  const auto a = gpu_telemetry_from_nvml(nvml, "GPU-a");
  EXPECT_EQ(a.at("sm_clock_mhz"), 1980);
  EXPECT_EQ(a.at("mem_clock_mhz"), 2619);
  EXPECT_EQ(a.at("power_w"), 650.5);
  EXPECT_EQ(a.at("temperature_c"), 61);
  EXPECT_TRUE(a.at("throttled").get<bool>());
  const auto b = gpu_telemetry_from_nvml(nvml, "GPU-b");
  EXPECT_EQ(b.at("sm_clock_mhz"), 345);
  EXPECT_TRUE(b.at("power_w").is_null());
  EXPECT_TRUE(b.at("mem_clock_mhz").is_null());
  EXPECT_FALSE(b.at("throttled").get<bool>()) << "idle is not throttling";
  const auto none = gpu_telemetry_from_nvml(nvml, "GPU-c");
  EXPECT_FALSE(none.at("available").get<bool>());
  EXPECT_NE(none.at("reason").get<std::string>().find("GPU-c"), std::string::npos);
  const auto off =
      gpu_telemetry_from_nvml({{"available", false}, {"reason", "dlopen failed"}}, "GPU-a");
  EXPECT_EQ(off.at("reason"), "dlopen failed");
  const nlohmann::json quiet = {{"available", true}, {"throttled", false}};
  const nlohmann::json capped = {{"available", true}, {"throttled", true}};
  EXPECT_TRUE(telemetry_pair(b, quiet, a).at("throttled").get<bool>());
  EXPECT_FALSE(telemetry_pair(b, quiet, off).at("throttled").get<bool>());
  // Idle before and after, held down by its power cap while it ran: throttled.
  const nlohmann::json t = telemetry_pair(b, capped, b);
  EXPECT_TRUE(t.at("throttled").get<bool>());
  EXPECT_EQ(t.at("during"), capped);
}

TEST(GpuTelemetry, SamplingNeverThrowsWithoutAGpu) {
  nlohmann::json t;
  ASSERT_NO_THROW(t = sample_gpu_telemetry("GPU-00000000-0000-0000-0000-000000000000"));
  EXPECT_TRUE(t.contains("available") || t.contains("sm_clock_mhz")) << t.dump();
}

} // namespace
} // namespace railgauge::gemm
