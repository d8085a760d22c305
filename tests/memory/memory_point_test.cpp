// The STREAM-like points' record type (records/memory_point.h) both ways: what write() puts in
// an Outcome, merged by the runner's own outcome_record and through a line of records.jsonl,
// reads back equal through read(). A field whose name write() and read() spell differently, or
// that one of them leaves out, fails here.
#include <ostream>
#include <vector>

#include <gtest/gtest.h>

#include "harness/measure.h"
#include "harness/record.h"
#include "harness/runner.h"
#include "harness/stats.h"
#include "records/memory_point.h"
#include "records/memory_record.h"

namespace railgauge::memory::record {

// A failed comparison shows both points as fields, not as bytes.
void PrintTo(const MemoryPoint &p, std::ostream *os) {
  Outcome o;
  p.write(o);
  const nlohmann::json read_only = {{"key", p.key},
                                    {"tier", p.tier},
                                    {"kind", p.kind},
                                    {kSizeBytes, p.size_bytes.value_or(-1)},
                                    {kGpu, p.gpu.value_or(-1)},
                                    {kNumaNode, p.numa_node.value_or(-1)},
                                    {kThreads, p.threads.value_or(-1)},
                                    {kBytesPerCall, p.bytes_per_call.value_or(-1)},
                                    {metric::kTimeS, p.time_s.value_or(-1)},
                                    {kBandwidthGbytesPerS, p.bandwidth_gbytes_per_s.value_or(-1)}};
  *os << read_only.dump() << " written params " << o.derived_params.dump() << " metrics "
      << o.metrics.dump();
}

namespace {

constexpr double kBytesPerCall = 3.0 * (1 << 20);

// The record as the runner writes it and analysis reads it: the planned point with the outcome
// merged in, one line of records.jsonl, parsed again.
Record recorded(const std::string &key, const nlohmann::json &axes, Outcome &outcome) {
  Record planned;
  planned.run = "2026-11-28T10-00-00Z-node017";
  planned.host = "node017";
  planned.key = key;
  planned.params = axes;
  planned.axes = axes;
  return Record::from_json(nlohmann::json::parse(outcome_record(planned, outcome).json_line()));
}

// An outcome whose metrics the measurement core derived, from three calls of kBytesPerCall.
Outcome measured_outcome() {
  Measurement m;
  const std::vector<double> samples_s = {1e-3, 2e-3, 4e-3};
  m.time_s = summarize(samples_s);
  Outcome outcome;
  outcome.metrics = m.bandwidth_metrics(static_cast<std::uint64_t>(kBytesPerCall));
  return outcome;
}

// What read() adds to what the family wrote: the point's identity and the core's figures.
MemoryPoint with_core_fields(MemoryPoint p, const std::string &key, const std::string &tier,
                             const std::string &kind) {
  p.key = key;
  p.tier = tier;
  p.kind = kind;
  p.size_bytes = 1 << 20;
  p.bytes_per_call = kBytesPerCall;
  p.time_s = 2e-3;
  p.bandwidth_gbytes_per_s = kBytesPerCall / 2e-3 / 1e9;
  return p;
}

TEST(MemoryPoint, AHostPointReadsBackAsWritten) {
  MemoryPoint written;
  written.threads_used = 6;
  written.total_bytes = 3 << 20;
  written.passes_per_call = 5;
  written.vector_isa = "avx2";
  written.verified = true;
  written.wrong_elements = 0;
  Outcome outcome = measured_outcome();
  written.write(outcome);
  const Record r =
      recorded(kHostTriad, {{kSizeBytes, 1 << 20}, {kNumaNode, 1}, {kThreads, 0}}, outcome);

  MemoryPoint expected = with_core_fields(written, kHostTriad, "host", "triad");
  expected.numa_node = 1;
  expected.threads = 0;
  const auto read = MemoryPoint::read(r);
  ASSERT_TRUE(read);
  EXPECT_EQ(*read, expected) << r.json_line();
}

TEST(MemoryPoint, AnHbmPointReadsBackAsWritten) {
  MemoryPoint written;
  written.total_bytes = 2 << 20;
  written.gpu_name = "NVIDIA H200";
  written.sm_count = 132;
  written.l2_bytes = 50 << 20;
  written.grid_blocks = 1056;
  written.block_threads = 256;
  written.wrong_elements = 7;
  written.telemetry = {{"sm_clock_mhz", 1980}};
  Outcome outcome = measured_outcome();
  written.write(outcome);
  const Record r = recorded(kHbmCopy, {{kSizeBytes, 1 << 20}, {kGpu, 3}}, outcome);

  MemoryPoint expected = with_core_fields(written, kHbmCopy, "hbm", "copy");
  expected.gpu = 3;
  const auto read = MemoryPoint::read(r);
  ASSERT_TRUE(read);
  EXPECT_EQ(*read, expected) << r.json_line();
}

// A field the writer leaves unset (a library memcpy has no launch, a host point no GPU) is not
// written at all, rather than written as 0 or null.
TEST(MemoryPoint, WritesOnlyTheFieldsSet) {
  Outcome outcome;
  MemoryPoint{}.write(outcome);
  EXPECT_EQ(outcome.derived_params, nlohmann::json::object());
  EXPECT_EQ(outcome.metrics, (nlohmann::json{{kVerified, false}}));
}

} // namespace
} // namespace railgauge::memory::record
