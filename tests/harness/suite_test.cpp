#include "harness/suite.h"

#include <filesystem>

#include <gtest/gtest.h>

#include "harness/error.h"

namespace railgauge {
namespace {

// Expects an InputError whose location is `where` and whose message contains `text`.
void expect_error(const std::string &yaml, const std::string &where, const std::string &text) {
  try {
    parse_suite(yaml, "s.yaml");
    FAIL() << "no error for:\n" << yaml;
  } catch (const InputError &e) {
    EXPECT_EQ(e.where(), where) << e.what();
    EXPECT_NE(std::string(e.what()).find(text), std::string::npos) << e.what();
  }
}

TEST(Suite, ParsesEntriesAxesAndMeasureSettings) {
  const auto s = parse_suite(R"(suite: quick
description: d
measure: {time_budget_s: 0.5, max_rel_noise: 0.03}
benchmarks:
  - key: memory.host_*
    axes:
      size_bytes: "4KiB:1MiB:*4"
      threads: [1, 2]
    measure: {min_samples: 20, batch: 64, gpu_min_timed_s: 0.5}
  - key: gemm.cpu_blas
)",
                             "s.yaml");
  EXPECT_EQ(s.name, "quick");
  ASSERT_EQ(s.entries.size(), 2u);
  EXPECT_EQ(s.entries[0].key_glob, "memory.host_*");
  EXPECT_EQ(s.entries[0].where, "s.yaml:5");
  EXPECT_EQ(s.entries[0].axes.at("threads"), "1,2");
  EXPECT_EQ(s.entries[0].axis_where.at("size_bytes"), "s.yaml:7");
  EXPECT_EQ(s.entries[0].measure.min_samples, 20);
  EXPECT_EQ(s.entries[0].measure.batch, 64);
  EXPECT_EQ(s.entries[1].measure.batch, 0); // sized from min_sample_s
  EXPECT_DOUBLE_EQ(s.entries[0].measure.gpu_min_timed_s, 0.5);
  EXPECT_DOUBLE_EQ(s.entries[1].measure.gpu_min_timed_s, 0.2); // the sustained window's default
  EXPECT_DOUBLE_EQ(s.entries[0].measure.time_budget_s, 0.5);
  EXPECT_DOUBLE_EQ(s.entries[1].measure.max_rel_noise, 0.03);
  EXPECT_EQ(s.entries[1].measure.min_samples, MeasureSpec{}.min_samples);
}

TEST(Suite, ErrorsCarryFileLineAndExpectation) {
  expect_error("suite: x\nbenchmarks:\n  - key: a.b\n    axis: {n: 1}\n", "s.yaml:4",
               "unknown field 'axis'");
  expect_error("suite: x\nbenchmarks: [\n", "s.yaml:3", "YAML syntax error");
  expect_error("suite: x\n", "s.yaml:1", "no 'benchmarks:'");
  expect_error("benchmarks:\n  - key: a.b\n", "s.yaml", "no 'suite: NAME'");
  expect_error("suite: x\nmeasure: {time_budget_s: fast}\nbenchmarks:\n  - key: a.b\n", "s.yaml:2",
               "bad value 'fast'");
  expect_error("suite: x\nbenchmarks:\n  - key: a.b\n    measure: {patience: 3}\n", "s.yaml:4",
               "unknown measurement setting 'patience'");
  expect_error("suite: x\nbenchmarks:\n  - axes: {n: 1}\n", "s.yaml:3", "no 'key'");
  expect_error("suite: x\nbenchmarks:\n  - key: a.b\n    axes: {n: {lo: 1}}\n", "s.yaml:4",
               "scalar spec or a list");
  expect_error("- 1\n- 2\n", "s.yaml", "must be a YAML mapping");
  expect_error("suite: x\nmeasure: {min_samples: 2.5}\nbenchmarks:\n  - key: a.b\n", "s.yaml:2",
               "whole number");
  expect_error("suite: x\nmeasure: {batch: -1}\nbenchmarks:\n  - key: a.b\n", "s.yaml:2",
               "bad value '-1' for measurement setting 'batch'");
  expect_error("suite: x\nmeasure: {max_samples: 1e10}\nbenchmarks:\n  - key: a.b\n", "s.yaml:2",
               "whole number");
  expect_error("suite: x\nmeasure: {min_samples: 50, max_samples: 5}\nbenchmarks:\n"
               "  - key: a.b\n",
               "s.yaml:2", "max_samples (5) is below min_samples (50)");
}

TEST(Suite, FindsByNameOrPathAndListsKnownOnes) {
  const std::string dir = std::string(RAILGAUGE_TEST_FIXTURES) + "/../../results/suites";
  EXPECT_NE(find_suite("node", {dir}).find("node.yaml"), std::string::npos);
  try {
    find_suite("nodes", {dir});
    FAIL();
  } catch (const InputError &e) {
    EXPECT_NE(e.fix().find("node"), std::string::npos) << e.fix();
  }
  EXPECT_THROW(find_suite("./missing.yaml", {dir}), InputError);
}

TEST(Suite, ShippedSuitesParse) {
  const std::string dir = std::string(RAILGAUGE_TEST_FIXTURES) + "/../../results/suites";
  for (const auto &e : std::filesystem::directory_iterator(dir)) {
    SCOPED_TRACE(e.path().string());
    EXPECT_NO_THROW(load_suite_file(e.path().string()));
  }
}

} // namespace
} // namespace railgauge
