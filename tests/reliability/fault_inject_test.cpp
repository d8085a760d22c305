// Wrong data injected into a result after the measurement and before the data check, through
// the benchmarks' test hooks (set_before_verify), end to end through the runner into
// records.jsonl: every point is a `failed` record with the counts, never `ok`.
#include <bit>
#include <cmath>
#include <cstring>
#include <limits>

#include <gtest/gtest.h>

#include "gemm/cpu_blas.h"
#include "harness/record_io.h"
#include "harness/runner.h"
#include "memory/host_stream.h"
#include "railgauge/config.h"
#include "tests/reliability/temp_dir.h"
#include "tests/support/null_printer.h"
#include "tests/support/quick_run_context.h"

namespace railgauge {
namespace {

enum class Fault { nan, sign_bit, exponent_bit, top_mantissa_bit };

template <typename T> void inject(T &value, Fault fault) {
  using Bits = std::conditional_t<sizeof(T) == 4, std::uint32_t, std::uint64_t>;
  constexpr int mantissa_bits = std::numeric_limits<T>::digits - 1;
  Bits bits = std::bit_cast<Bits>(value);
  switch (fault) {
  case Fault::nan:
    value = std::numeric_limits<T>::quiet_NaN();
    return;
  case Fault::sign_bit:
    bits ^= Bits{1} << (sizeof(T) * 8 - 1);
    break;
  case Fault::exponent_bit:
    bits ^= Bits{1} << (mantissa_bits + 2);
    break;
  case Fault::top_mantissa_bit:
    bits ^= Bits{1} << (mantissa_bits - 1);
    break;
  }
  value = std::bit_cast<T>(bits);
}

class FaultInjection : public testing::QuickRunContextTest {
protected:
  // Runs every point of `bench` that the overrides select into a records file; returns them.
  std::vector<Record> run(std::unique_ptr<Benchmark> bench,
                          const std::vector<AxisOverride> &overrides) {
    Registry registry;
    const std::string key(bench->key());
    registry.add(std::move(bench));
    SuiteEntry entry;
    entry.key_glob = key;
    entry.where = "test";
    entry.measure = ctx_.measure_spec();
    const auto plan = make_plan(registry, {entry}, overrides, std::nullopt, ctx_);
    const std::string path = dir_.path() + "/" + key + std::to_string(runs_++) + ".jsonl";
    RecordFile file(path);
    testing::NullPrinter printer;
    execute_plan(plan, ctx_, {"run-1", "test", 0, dir_.path()}, {file, printer, false});
    auto read = read_records(path);
    EXPECT_EQ(read.problems, std::vector<std::string>{});
    return read.records;
  }

  testing::TempDir dir_{"fault"};
  int runs_ = 0;
};

TEST_F(FaultInjection, CorruptedGemmResultIsFailedWithCounts) {
  if (!RAILGAUGE_HAS_OPENBLAS)
    GTEST_SKIP() << "built without OpenBLAS";
  for (const char *dtype : {"fp32", "fp64"}) {
    for (Fault fault :
         {Fault::nan, Fault::sign_bit, Fault::exponent_bit, Fault::top_mantissa_bit}) {
      SCOPED_TRACE(std::string(dtype) + " fault " + std::to_string(static_cast<int>(fault)));
      auto bench = gemm::make_cpu_blas_size();
      const bool fp32 = std::string(dtype) == "fp32";
      bench->set_before_verify([fault, fp32](std::size_t gemm, void *c) {
        if (gemm != 0)
          return;
        if (fp32)
          inject(static_cast<float *>(c)[137], fault);
        else
          inject(static_cast<double *>(c)[137], fault);
      });
      const auto records =
          run(std::move(bench),
              {parse_axis_override("m=16"), parse_axis_override(std::string("dtype=") + dtype)});
      ASSERT_EQ(records.size(), 1u);
      EXPECT_EQ(records[0].status, Status::failed) << records[0].to_json().dump();
      EXPECT_EQ(records[0].metrics.at("wrong_elements"), 1);
      EXPECT_EQ(records[0].metrics.at("verified_elements"), 256);
      EXPECT_FALSE(records[0].metrics.at("verified").get<bool>());
      ASSERT_TRUE(records[0].reason);
      EXPECT_NE(records[0].reason->find("1 of 256"), std::string::npos) << *records[0].reason;
    }
  }
}

TEST_F(FaultInjection, CorruptedHostMemoryIsFailedWithCounts) {
  using memory::StreamArrays;
  struct Case {
    std::unique_ptr<memory::HostStreamBenchmark> (*make)();
    double *StreamArrays::*array; // the array the kernel wrote (or read, for host_read)
  };
  for (const Case &c : {Case{memory::make_host_read, &StreamArrays::a},
                        Case{memory::make_host_write, &StreamArrays::a},
                        Case{memory::make_host_copy, &StreamArrays::c},
                        Case{memory::make_host_triad, &StreamArrays::a}}) {
    for (Fault fault : {Fault::nan, Fault::sign_bit, Fault::top_mantissa_bit}) {
      auto bench = c.make();
      SCOPED_TRACE(std::string(bench->key()) + " fault " + std::to_string(int(fault)));
      bench->set_before_verify(
          [&c, fault](const StreamArrays &arrays) { inject((arrays.*c.array)[5000], fault); });
      const auto records = run(std::move(bench), {parse_axis_override("size_bytes=64KiB"),
                                                  parse_axis_override("threads=1")});
      ASSERT_EQ(records.size(), 1u);
      EXPECT_EQ(records[0].status, Status::failed) << records[0].to_json().dump();
      EXPECT_EQ(records[0].metrics.at("wrong_elements"), 1);
      EXPECT_FALSE(records[0].metrics.at("verified").get<bool>());
    }
  }
}

} // namespace
} // namespace railgauge
