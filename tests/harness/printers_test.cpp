#include "cli/printers.h"

#include <sstream>

#include <gtest/gtest.h>

#include "harness/error.h"

namespace railgauge {
namespace {

Record record(const std::string &key, double bw, Status status = Status::ok) {
  Record r;
  r.run = "r";
  r.host = "h";
  r.key = key;
  r.params = {{"size_bytes", 4096}, {"op", "copy"}};
  if (status == Status::ok)
    r.metrics = {{"time_s", {{"median", 2.5e-6}, {"mean", 2.5e-6}, {"stdev", 2.5e-8}}},
                 {"bandwidth_gbytes_per_s", bw}};
  r.status = status;
  if (status != Status::ok)
    r.reason = "no GPU, here";
  r.time_utc = "2026-11-22T10:00:00.000Z";
  return r;
}

TEST(Printers, CsvGolden) {
  std::ostringstream out;
  auto p = make_csv_printer(out);
  p->on_record(record("memory.host_copy", 12.5));
  p->on_record(record("memory.host_copy", 13));
  p->on_record(record("gemm.cublaslt", 0, Status::waived));
  EXPECT_EQ(out.str(),
            "key,status,host,rank,params.op,params.size_bytes,metrics.bandwidth_gbytes_per_s,"
            "metrics.time_s.mean,metrics.time_s.median,metrics.time_s.stdev,reason\n"
            "memory.host_copy,ok,h,0,copy,4096,12.5,2.5e-06,2.5e-06,2.5e-08,\n"
            "memory.host_copy,ok,h,0,copy,4096,13.0,2.5e-06,2.5e-06,2.5e-08,\n"
            "key,status,host,rank,params.op,params.size_bytes,reason\n"
            "gemm.cublaslt,waived,h,0,copy,4096,\"no GPU, here\"\n");
}

TEST(Printers, CsvMeasuredPointAfterAWaivedOneKeepsItsMetrics) {
  std::ostringstream out;
  auto p = make_csv_printer(out);
  p->on_record(record("memory.host_copy", 0, Status::waived));
  p->on_record(record("memory.host_copy", 12.5));
  const std::string text = out.str();
  EXPECT_NE(text.find("\nkey,status,host,rank,params.op,params.size_bytes,"
                      "metrics.bandwidth_gbytes_per_s,"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find(",12.5,"), std::string::npos) << text;
}

TEST(Printers, InvalidUtf8IsReplacedNotThrown) {
  std::ostringstream out;
  auto p = make_jsonl_printer(out);
  Record r = record("memory.host_copy", 0, Status::error);
  r.reason = std::string("driver said \xff\xfe");
  EXPECT_NO_THROW(p->on_record(r));
  EXPECT_TRUE(nlohmann::json::parse(out.str()).contains("reason"));
}

TEST(Printers, JsonlIsTheRecordItself) {
  std::ostringstream out;
  auto p = make_jsonl_printer(out);
  const auto r = record("memory.host_copy", 12.5);
  p->on_record(r);
  EXPECT_EQ(nlohmann::json::parse(out.str()), r.to_json());
}

TEST(Printers, TableSummarisesPerKeyAndListsEveryProblem) {
  std::ostringstream out;
  auto p = make_table_printer(out);
  p->on_record(record("memory.host_copy", 12.5));
  p->on_record(record("memory.host_copy", 3));
  p->on_record(record("gemm.cublaslt", 0, Status::waived));
  Record bad = record("memory.host_copy", 0, Status::failed);
  bad.reason = "data check failed: 1 of 512 elements hold wrong values";
  p->on_record(bad);
  p->finish();
  EXPECT_EQ(out.str(),
            "Summary: one row per benchmark (4 points: 2 ok, 1 waived, 1 failed). range = lowest "
            ".. highest value of the metric over its ok points (median time each); noise = the "
            "worst half-width of a point's samples' p10..p90 over their median; GB = 1e9 bytes\n"
            "key               ok  waived  failed  error  range      metric                  "
            "noise  why not ok (first)\n"
            "----------------  --  ------  ------  -----  ---------  ----------------------  "
            "-----  ------------------------------------------------------\n"
            "memory.host_copy  2   0       1       0      3 .. 12.5  bandwidth_gbytes_per_s  "
            "1.3%   data check failed: 1 of 512 elements hold wrong values\n"
            "gemm.cublaslt     0   1       0       0" +
                std::string(48, ' ') + "no GPU, here\n" +
                "\n"
                "Points that failed (wrong data) or broke (error), in full\n"
                "key               point                    status  reason\n"
                "----------------  -----------------------  ------  "
                "------------------------------------------------------\n"
                "memory.host_copy  op=copy size_bytes=4096  failed  data check failed: 1 of 512 "
                "elements hold wrong values\n");
}

// A point timed without a headline figure (a latency object, rdma.tcp_lat's) still shows its
// noise: it may be the one the run is named noisy for.
TEST(Printers, SummaryShowsTheNoiseOfAPointWithoutAHeadline) {
  std::ostringstream out;
  auto p = make_table_printer(out);
  Record r;
  r.run = "r";
  r.host = "h";
  r.key = "rdma.tcp_lat";
  r.params = {{"size_bytes", 2}};
  r.metrics = {{"time_s", {{"median", 20e-6}, {"p10", 18e-6}, {"p90", 200e-6}}},
               {"latency", {{"p50_s", 12e-6}}}};
  p->on_record(r);
  p->finish();
  EXPECT_NE(out.str().find("rdma.tcp_lat  1   0       0       0                     455.0%"),
            std::string::npos)
      << out.str();
}

// The points the runner found noisier than their bound end the summary, with the bound.
TEST(Printers, TableEndsWithThePointsNoisierThanTheirBound) {
  std::ostringstream out;
  const std::vector<NoisyPoint> noisy = {{"memory.host_copy", "size_bytes=4096", 2.5, 0.5}};
  auto p = make_table_printer(out, &noisy);
  p->on_record(record("memory.host_copy", 12.5));
  p->finish();
  EXPECT_NE(out.str().find("\nNOISY: 1 point(s) whose noise (p10..p90 half-width over the median) "
                           "exceeds the suite's noise_bound; the run exits 1\n"
                           "key               point            noise   bound\n"),
            std::string::npos)
      << out.str();
  EXPECT_NE(out.str().find("memory.host_copy  size_bytes=4096  250.0%  50.0%\n"), std::string::npos)
      << out.str();
}

TEST(Printers, HeadlinePrefersMostSpecificMetric) {
  Record r = record("x.y", 5);
  r.metrics["busbw_gbytes_per_s"] = 9.0;
  EXPECT_EQ(headline_metric(r).name, "busbw_gbytes_per_s");
  r.metrics = nlohmann::json::object();
  EXPECT_EQ(headline_metric(r).name, "");
}

TEST(Printers, UnknownFormatIsAnInputError) {
  EXPECT_EQ(parse_output_format("csv", "--format"), OutputFormat::csv);
  EXPECT_THROW(parse_output_format("xml", "--format"), InputError);
}

} // namespace
} // namespace railgauge
