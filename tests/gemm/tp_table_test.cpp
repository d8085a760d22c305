// render_tp_table(): golden output for a small TP sweep, efficiency mode, and what it ignores.
#include <gtest/gtest.h>

#include "gemm/tp_table.h"

namespace railgauge::gemm {
namespace {

Record tp_record(const std::string &op, std::int64_t tp, double tflops, Status status = Status::ok,
                 std::optional<double> efficiency = std::nullopt) {
  Record r;
  r.key = "gemm.cpu_blas";
  r.params = {{"model", "cpu-small"}, {"dtype", "fp32"}, {"seq", 1024},
              {"micro_batch", 1},     {"tp", tp},        {"op", op}};
  r.status = status;
  if (status == Status::ok) {
    r.metrics["tflops"] = tflops;
    if (efficiency)
      r.metrics["efficiency"] = *efficiency;
  }
  return r;
}

TEST(TpTable, RowsInBlockOrderColumnsByTp) {
  const std::vector<Record> records = {
      tp_record("mlp_up.fwd", 2, 0.0512),
      tp_record("qkv.fwd", 1, 0.1),
      tp_record("qkv.fwd", 2, 0.09),
      tp_record("qkv.dgrad", 1, 0.12345),
      tp_record("scores.wgrad", 1, 0, Status::waived),
      tp_record("qkv.dgrad", 2, 0, Status::failed),
  };
  const std::string expect =
      "\ngemm.cpu_blas cpu-small fp32 (seq 1024, micro_batch 1): TFLOP/s (1e12 FLOP/s, median "
      "time) per GEMM (row) at TP degree t (column)\n"
      "gemm               t=1       t=2\n"
      "qkv.fwd            0.1      0.09\n"
      "qkv.dgrad       0.1235    FAILED\n"
      "scores.wgrad    waived          \n"
      "mlp_up.fwd                0.0512\n";
  EXPECT_EQ(render_tp_table(records), expect);
}

TEST(TpTable, EfficiencyWhenEveryCellHasOne) {
  const std::vector<Record> records = {tp_record("qkv.fwd", 1, 700, Status::ok, 0.7078),
                                       tp_record("qkv.fwd", 8, 500, Status::ok, 0.5)};
  const std::string table = render_tp_table(records);
  EXPECT_NE(table.find("efficiency, % of the dense peak"), std::string::npos) << table;
  EXPECT_NE(table.find("qkv.fwd      70.8      50.0"), std::string::npos) << table;
}

TEST(TpTable, UnplannedWaivedPointUsesGemmAndPass) {
  Record waived = tp_record("", 64, 0, Status::waived);
  waived.params.erase("op");
  waived.params["gemm"] = "qkv";
  waived.params["pass"] = "fwd";
  waived.params["seq"] = 0; // the axis default: "the model's own", never resolved
  const std::string table = render_tp_table({tp_record("qkv.fwd", 1, 1), waived});
  EXPECT_NE(table.find("qkv.fwd         1    waived"), std::string::npos) << table;
  EXPECT_EQ(table.find("seq 0"), std::string::npos) << table;
}

TEST(TpTable, WaivedCpuColumnJoinsTheTableOfThePlannedPoints) {
  // A measured CPU point carries the derived layout param; a t that does not divide the heads is
  // waived before planning, without it. Its column must still show, as "waived".
  Record ok = tp_record("qkv.fwd", 8, 1);
  ok.params["layout"] = "row_major_nn";
  Record waived = tp_record("qkv.fwd", 64, 0, Status::waived);
  waived.params["micro_batch"] = 0; // the axis default: "the model's own", never resolved
  const std::string table = render_tp_table({ok, waived});
  EXPECT_NE(table.find("t=64"), std::string::npos) << table;
  EXPECT_NE(table.find("waived"), std::string::npos) << table;
  EXPECT_EQ(table.find("gemm.cpu_blas", table.find("gemm.cpu_blas") + 1), std::string::npos)
      << "one table, not two:\n"
      << table;
}

TEST(TpTable, OneTablePerModelAndDtype) {
  Record other = tp_record("qkv.fwd", 1, 1);
  other.params["dtype"] = "fp64";
  const std::string table = render_tp_table({tp_record("qkv.fwd", 1, 1), other});
  EXPECT_NE(table.find("cpu-small fp32"), std::string::npos);
  EXPECT_NE(table.find("cpu-small fp64"), std::string::npos);
}

TEST(TpTable, IgnoresSizeSweepsAndOtherFamilies) {
  Record size;
  size.key = "gemm.cpu_blas_size";
  size.params = {{"op", "size"}, {"m", 64}};
  Record memory;
  memory.key = "memory.host_copy";
  memory.params = {{"size_bytes", 4096}};
  EXPECT_EQ(render_tp_table({size, memory}), "");
  EXPECT_EQ(render_tp_table({}), "");
}

} // namespace
} // namespace railgauge::gemm

namespace railgauge::gemm {
namespace {

TEST(TpTable, AllWaivedCurveIsLeftToTheSummary) {
  EXPECT_EQ(render_tp_table({tp_record("qkv.fwd", 1, 0, Status::waived),
                             tp_record("qkv.fwd", 2, 0, Status::waived)}),
            "");
}

} // namespace
} // namespace railgauge::gemm

namespace railgauge::gemm {
namespace {

Record gpu_record(const std::string &op, std::int64_t tp, double tflops, double best_tflops,
                  std::int64_t gpu = 0) {
  Record r = tp_record(op, tp, tflops, Status::ok, tflops / 989);
  r.key = "gemm.cublaslt";
  r.params["model"] = "gpt3-175b";
  r.params["dtype"] = "bf16";
  r.params["seq"] = 2048;
  r.params["gpu"] = gpu;
  r.params["layout"] = "nt";
  r.params["gpu_name"] = "NVIDIA H100 80GB HBM3";
  r.params["m"] = 2048;
  r.params["n"] = 36864;
  r.params["k"] = 12288;
  r.metrics["best_tflops"] = best_tflops;
  return r;
}

TEST(TpTable, GpuBackendAddsTheTableAgainstTheBestMeasuredInTheRun) {
  // Illustrative numbers, not measurements.
  Record square;
  square.key = "gemm.cublaslt_size";
  square.params = {{"op", "size"}, {"dtype", "bf16"}, {"gpu_name", "NVIDIA H100 80GB HBM3"},
                   {"m", 8192},    {"n", 8192},       {"k", 8192}};
  square.metrics = {{"tflops", 790.0}, {"best_tflops", 800.0}};
  const std::string table =
      render_tp_table({gpu_record("qkv.fwd", 1, 700, 720), gpu_record("qkv.fwd", 8, 400, 420),
                       square, gpu_record("qkv.fwd", 1, 100, 100, 1)});
  EXPECT_NE(table.find("(seq 2048, micro_batch 1, NVIDIA H100 80GB HBM3, gpu 0, layout nt): "
                       "efficiency"),
            std::string::npos)
      << table;
  EXPECT_NE(table.find("gpu 1, layout nt"), std::string::npos) << "each GPU its own table";
  EXPECT_NE(table.find("% of the best measured in this run (800 TFLOP/s, gemm.cublaslt_size "
                       "8192×8192×8192)"),
            std::string::npos)
      << table;
  EXPECT_NE(table.find("qkv.fwd      87.5      50.0"), std::string::npos) << table;
  EXPECT_NE(table.find("qkv.fwd      70.8      40.4"), std::string::npos) << table;
}

} // namespace
} // namespace railgauge::gemm
