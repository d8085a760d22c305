// Runs under mpirun with several processes (label mpi): every MPI collective and textbook
// benchmark on real MPI ranks, data checked, and a corrupted output caught on every rank.
#include <algorithm>

#include <gtest/gtest.h>

#include "collectives/mpi/host_gemm_load.h"
#include "collectives/mpi/mpi_collective.h"
#include "harness/error.h"
#include "harness/run_context.h"

namespace railgauge::collectives {
namespace {

// One MPI session for the whole test program (MPI can be initialised once per process).
struct Shared {
  std::shared_ptr<MpiFamily> family = std::make_shared<MpiFamily>();
  std::shared_ptr<MpiTestHooks> hooks = std::make_shared<MpiTestHooks>();
};
Shared &shared() {
  static Shared s;
  return s;
}

class MpiCollectivesTest : public ::testing::Test {
protected:
  MpiCollectivesTest()
      : topology_(Topology::load_this_machine()), ctx_(topology_, sampler_, "t", 0) {}
  void TearDown() override { *shared().hooks = {}; }

  Outcome run(Benchmark &b, std::map<std::string, std::string> values) {
    Point point;
    for (const auto &axis : b.axes()) {
      auto it = values.find(axis.name);
      point.set(axis.name, it == values.end()
                               ? axis.defaults.front()
                               : parse_axis_values(axis, it->second, "test").front());
    }
    if (auto why = b.supported(ctx_, point))
      return Outcome::waived(*why);
    return b.run(ctx_, point);
  }
  int world() { return shared().family->session(60.0).size(); }

  Topology topology_;
  GBenchSampler sampler_;
  RunContext ctx_;
};

TEST_F(MpiCollectivesTest, EveryKindDtypeAndPlacementVerifies) {
  ASSERT_GE(world(), 2) << "run under mpirun -np N, N >= 2";
  for (auto kind : all_kinds()) {
    auto b = make_mpi_collective(kind, shared().family, shared().hooks);
    for (const char *dtype : {"float32", "float64", "int32", "bf16", "fp16"})
      for (const char *place : {"out_of_place", "in_place"})
        for (const char *size : {"96", "96KiB"}) {
          const auto out = run(*b, {{"dtype", dtype},
                                    {"in_place", place},
                                    {"size_bytes", size},
                                    {"iterations", "3"},
                                    {"warmup", "1"},
                                    {"op", std::string(dtype) == "int32" ? "prod" : "sum"}});
          SCOPED_TRACE(testing::Message() << b->key() << " " << dtype << " " << place << " " << size
                                          << ": " << out.reason.value_or(""));
          if (out.status == Status::waived) {
            EXPECT_TRUE(kind == Kind::broadcast || kind == Kind::sendrecv) << *out.reason;
            continue;
          }
          ASSERT_EQ(out.status, Status::ok);
          EXPECT_EQ(out.metrics["verified"], true);
          EXPECT_EQ(out.metrics["wrong_elements"], 0);
          EXPECT_GT(out.metrics["busbw_gbytes_per_s"].get<double>(), 0);
          EXPECT_EQ(out.metrics["iterations"], 3);
          EXPECT_LT(out.metrics["slowest_rank"].get<int>(), world());
          EXPECT_EQ(out.derived_params["group_size"], world());
        }
  }
}

TEST_F(MpiCollectivesTest, EveryReductionOp) {
  auto b = make_mpi_collective(Kind::all_reduce, shared().family, shared().hooks);
  for (const char *op : {"sum", "prod", "max", "min"})
    for (const char *dtype : {"float32", "bf16", "int32"}) {
      const auto out = run(*b, {{"op", op}, {"dtype", dtype}, {"iterations", "2"}});
      EXPECT_EQ(out.status, Status::ok) << op << " " << dtype << ": " << out.reason.value_or("");
    }
}

TEST_F(MpiCollectivesTest, TextbookAlgorithmsVerifyBesideTheLibrary) {
  for (auto kind : {Kind::all_reduce, Kind::all_gather, Kind::reduce_scatter}) {
    auto b = make_mpi_textbook(kind, shared().family, shared().hooks);
    for (auto algorithm : algorithms_for(kind))
      for (const char *size : {"96", "3MiB"}) {
        const auto out = run(*b, {{"algorithm", std::string(to_string(algorithm))},
                                  {"size_bytes", size},
                                  {"iterations", "3"},
                                  {"dtype", "float32"}});
        SCOPED_TRACE(testing::Message() << b->key() << " " << to_string(algorithm) << " " << size);
        ASSERT_EQ(out.status, Status::ok) << out.reason.value_or("");
        EXPECT_GT(out.metrics["time_ratio_to_library"].get<double>(), 0);
        EXPECT_GT(out.metrics["library"]["busbw_gbytes_per_s"].get<double>(), 0);
      }
  }
}

TEST_F(MpiCollectivesTest, GroupSplitsRunAloneAndConcurrently) {
  if (world() % 2 || world() < 4)
    GTEST_SKIP() << "needs an even number of ranks, at least 4 (groups of 2 of each type)";
  auto b = make_mpi_collective(Kind::all_reduce, shared().family, shared().hooks);
  for (const char *type : {"tp", "dp", "concurrent"}) {
    const auto out =
        run(*b, {{"groups", "tp=2+dp=rest"}, {"group_type", type}, {"iterations", "3"}});
    ASSERT_EQ(out.status, Status::ok) << type << ": " << out.reason.value_or("");
    EXPECT_EQ(out.derived_params["group_type"], type);
    if (std::string(type) == "tp") {
      EXPECT_EQ(out.derived_params["group_size"], 2);
    } else if (std::string(type) == "dp") {
      EXPECT_EQ(out.derived_params["group_size"], world() / 2);
    } else { // concurrent: both types at once, each with its own time and bandwidth
      const auto &by_type = out.metrics.at("by_group_type");
      ASSERT_EQ(by_type.size(), 2u) << by_type.dump();
      EXPECT_EQ(by_type.at("tp").at("group_size"), 2);
      EXPECT_EQ(by_type.at("dp").at("group_size"), world() / 2);
      for (const char *t : {"tp", "dp"}) {
        EXPECT_GT(by_type.at(t).at("busbw_gbytes_per_s").get<double>(), 0) << t;
        // A type's collective ends within the iteration, which ends with the last of them.
        EXPECT_LE(by_type.at(t).at("time_s").at("median").get<double>(),
                  out.metrics.at("time_s").at("max").get<double>() * 1.0001)
            << t;
      }
    }
  }
  EXPECT_THROW(run(*b, {{"groups", "tp=3+dp=rest"}, {"group_type", "tp"}}), InputError);
}

// A wrong element in one rank's output: the point fails on every rank, with the count.
TEST_F(MpiCollectivesTest, InjectedWrongDataFailsOnEveryRank) {
  const int me = shared().family->session(60.0).rank();
  shared().hooks->before_check = [me](std::byte *data, std::size_t bytes) {
    if (me == 1 && bytes >= 8) {
      data[0] ^= std::byte{0x10};
      data[4] ^= std::byte{0x10};
    }
  };
  for (auto make : {make_mpi_collective, make_mpi_textbook}) {
    auto b = make(Kind::all_reduce, shared().family, shared().hooks);
    const auto out = run(*b, {{"iterations", "2"}});
    ASSERT_EQ(out.status, Status::failed) << b->key();
    EXPECT_EQ(out.metrics["wrong_elements"], 2) << b->key();
    EXPECT_NE(out.reason->find("2 elements wrong over all ranks"), std::string::npos)
        << *out.reason;
  }
}

// The all_reduce beside a GEMM: both data-checked, every figure positive, the window balanced;
// a wrong element in one rank's all_reduce output fails the point on every rank.
TEST_F(MpiCollectivesTest, AllReduceWithGemmVerifiesAndCatchesWrongData) {
  if (auto why = host_gemm_unavailable_reason())
    GTEST_SKIP() << *why;
  auto b = make_mpi_all_reduce_with_gemm(shared().family, shared().hooks);
  const std::map<std::string, std::string> small = {
      {"size_bytes", "96KiB"}, {"gemm_mnk", "96"}, {"iterations", "3"}, {"warmup", "1"}};
  const auto out = run(*b, small);
  ASSERT_EQ(out.status, Status::ok) << out.reason.value_or("");
  EXPECT_EQ(out.metrics["verified"], true);
  EXPECT_EQ(out.metrics["wrong_elements"], 0);
  EXPECT_EQ(out.metrics["gemm_wrong_samples"], 0);
  for (const char *m : {"allreduce_alone_s", "allreduce_concurrent_s", "gemm_alone_s",
                        "gemm_concurrent_s", "gemm_slowdown", "collective_slowdown",
                        "busbw_alone_gbytes_per_s", "busbw_concurrent_gbytes_per_s"})
    EXPECT_GT(out.metrics[m].get<double>(), 0) << m;
  EXPECT_DOUBLE_EQ(out.metrics["gemm_slowdown"].get<double>(),
                   out.metrics["gemm_concurrent_s"].get<double>() /
                       out.metrics["gemm_alone_s"].get<double>());
  // One of the two runs once per window, the other as often as fits.
  EXPECT_EQ(std::min(out.metrics["gemms_per_window"].get<int>(),
                     out.metrics["allreduces_per_window"].get<int>()),
            1);
  EXPECT_EQ(out.derived_params["group_size"], world());

  const int me = shared().family->session(60.0).rank();
  shared().hooks->before_check = [me](std::byte *data, std::size_t bytes) {
    if (me == 1 && bytes >= 8) {
      data[0] ^= std::byte{0x10};
      data[4] ^= std::byte{0x10};
    }
  };
  const auto bad = run(*b, small);
  ASSERT_EQ(bad.status, Status::failed);
  EXPECT_EQ(bad.metrics["wrong_elements"], 2);
}

} // namespace
} // namespace railgauge::collectives

int main(int argc, char **argv) {
  ::testing::InitGoogleTest(&argc, argv);
  // Only rank 0 prints the test progress; a failure on any rank still fails the exit status.
  railgauge::collectives::shared().family->session(60.0);
  const int rank = railgauge::collectives::shared().family->session(60.0).rank();
  if (rank != 0)
    delete ::testing::UnitTest::GetInstance()->listeners().Release(
        ::testing::UnitTest::GetInstance()->listeners().default_result_printer());
  const int rc = RUN_ALL_TESTS();
  return rc;
}
