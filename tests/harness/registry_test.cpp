#include "harness/registry.h"

#include <gtest/gtest.h>

#include "fake_benchmark.h"
#include "harness/error.h"

namespace railgauge {
namespace {

Registry three() {
  Registry r;
  r.add(std::make_unique<testing::FakeBenchmark>("memory.host_copy"));
  r.add(std::make_unique<testing::FakeBenchmark>("memory.host_read"));
  r.add(std::make_unique<testing::FakeBenchmark>("gemm.cublaslt"));
  return r;
}

TEST(Registry, FindsByKeyAndGlobInOrder) {
  const auto r = three();
  EXPECT_NE(r.find("gemm.cublaslt"), nullptr);
  EXPECT_EQ(r.find("gemm.cublas"), nullptr);
  const auto mem = r.match("memory.*");
  ASSERT_EQ(mem.size(), 2u);
  EXPECT_EQ(mem[0]->key(), "memory.host_copy");
  EXPECT_EQ(r.match("*.host_[r]ead").size(), 1u);
  EXPECT_EQ(r.all().size(), 3u);
}

TEST(Registry, UnknownKeyNamesTheClosest) {
  const auto r = three();
  EXPECT_EQ(r.closest("memory.host_cpy", 1), std::vector<std::string>{"memory.host_copy"});
  try {
    r.select("memory.host_cpy", "suite.yaml:4");
    FAIL();
  } catch (const InputError &e) {
    EXPECT_EQ(e.where(), "suite.yaml:4");
    EXPECT_NE(e.fix().find("memory.host_copy"), std::string::npos) << e.fix();
  }
}

TEST(Registry, RejectsDuplicateAndMalformedKeys) {
  auto r = three();
  EXPECT_THROW(r.add(std::make_unique<testing::FakeBenchmark>("gemm.cublaslt")), std::logic_error);
  EXPECT_THROW(r.add(std::make_unique<testing::FakeBenchmark>("nofamily")), std::logic_error);
  EXPECT_THROW(r.add(std::make_unique<testing::FakeBenchmark>("Gemm.Big")), std::logic_error);
}

} // namespace
} // namespace railgauge
