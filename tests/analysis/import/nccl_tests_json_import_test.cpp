// The nccl-tests -J importer on the format sample in tests/fixtures/nccl-tests (made-up numbers
// in the layout nccl-tests writes) and on edits of it that a real file could hold.
#include <fstream>
#include <sstream>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "analysis/import/nccl_tests_import.h"
#include "harness/error.h"
#include "tests/support/fixture_text.h"

namespace railgauge::importers {
namespace {

// A file of tests/fixtures/nccl-tests.
std::string fixture(const std::string &name) { return testing::fixture_text("nccl-tests/" + name); }

std::string sample() { return fixture("all_reduce_format_sample.json"); }

NcclTestsImport import(const std::string &text, std::optional<Kind> kind = std::nullopt) {
  return import_nccl_tests(text, "ar.json", kind, "imp", "node01");
}

// The InputError's where for `text`, or "" when it imports.
std::string error_where(const std::string &text) {
  try {
    import(text);
  } catch (const InputError &e) {
    return e.where();
  }
  return "";
}

// -c 0: config.validation 0 and nwrong null. The text form's twin warned (metrics.verified
// false, which check's data-check reads); the JSON passed with no word.
TEST(NcclTestsJsonImport, ARunWithoutItsDataCheckSaysSo) {
  auto doc = nlohmann::json::parse(sample());
  doc["config"]["validation"] = 0;
  for (auto &row : doc["results"])
    for (const char *half : {"out_of_place", "in_place"})
      row[half]["nwrong"] = nullptr;
  const auto off = import(doc.dump());
  ASSERT_EQ(off.records.size(), 4u);
  for (const auto &r : off.records)
    EXPECT_EQ(r.metrics.value("verified", true), false) << r.metrics.dump();
  // A null nwrong with the check on says nothing of the check.
  doc["config"]["validation"] = 1;
  for (const auto &r : import(doc.dump()).records)
    EXPECT_FALSE(r.metrics.contains("verified")) << r.metrics.dump();
}

TEST(NcclTestsJsonImport, ReadsEveryHalfWithStatusVersionAndEnvironment) {
  const auto r = import(sample());
  ASSERT_EQ(r.kind, Kind::all_reduce); // from args[0]
  ASSERT_EQ(r.records.size(), 4u);
  ASSERT_EQ(r.ranks.size(), 2u);
  EXPECT_EQ(r.ranks[1], "Rank 1 Group 0 Pid 41002 on node01 device 1 [0000:3b:00] NVIDIA H100 "
                        "80GB HBM3");
  ASSERT_TRUE(r.avg_busbw_gbytes_per_s);
  EXPECT_DOUBLE_EQ(*r.avg_busbw_gbytes_per_s, 26.904625);
  EXPECT_EQ(r.about["json_version"], 3);
  EXPECT_EQ(r.about["config"]["iterations"], 4);
  const auto &big_out = r.records[2];
  EXPECT_EQ(big_out.key, "collectives.nccl_all_reduce");
  EXPECT_EQ(big_out.params["size_bytes"], 1048576);
  EXPECT_EQ(big_out.params["dtype"], "float32");
  EXPECT_EQ(big_out.params["op"], "sum");
  EXPECT_FALSE(big_out.params.contains("root")); // "    -1", padded as nccl-tests prints it
  EXPECT_EQ(big_out.params["source_format"], "json");
  EXPECT_DOUBLE_EQ(big_out.metrics["wall_time_s"].get<double>(), 20e-6);
  EXPECT_DOUBLE_EQ(big_out.metrics["busbw_gbytes_per_s"].get<double>(), 52.4288);
  EXPECT_EQ(big_out.metrics["nccl_version"], "2.28.3");
  EXPECT_EQ(big_out.metrics["env_NCCL_ALGO"], "Ring");
  EXPECT_EQ(big_out.metrics["env_NCCL_PROTO"], "Simple");
  EXPECT_FALSE(big_out.metrics.contains("time_s")); // no -I 1 times in this row
  EXPECT_EQ(big_out.status, Status::ok);
  EXPECT_EQ(r.records[3].status, Status::failed);
  EXPECT_EQ(r.records[3].metrics["wrong_elements"], 3);
  for (const auto &rec : r.records)
    EXPECT_NO_THROW(Record::from_json(rec.to_json()));
}

TEST(NcclTestsJsonImport, PerIterationTimesSkipTheLeadingOnesAndNameTheSlowestProcess) {
  const auto r = import(sample());
  const auto &small_out = r.records[0].metrics;
  // times_us 30, 10, 10, 14 with 1 skipped: 10, 10, 14 us.
  EXPECT_EQ(small_out["iterations"], 3);
  EXPECT_DOUBLE_EQ(small_out["time_s"]["median"].get<double>(), 10e-6);
  EXPECT_DOUBLE_EQ(small_out["time_s"]["max"].get<double>(), 14e-6);
  EXPECT_EQ(small_out["processes"], 2);
  // After the skip, process 0 (9 10 14) against process 1 (10 9 13): process 0 is slower in 2 of
  // 3 iterations.
  EXPECT_EQ(small_out["slowest_process"], 0);
  EXPECT_NEAR(small_out["slowest_process_share"].get<double>(), 2.0 / 3.0, 1e-12);
  // In place, process 0 is the slower in all three.
  EXPECT_EQ(r.records[1].metrics["slowest_process"], 0);
  EXPECT_DOUBLE_EQ(r.records[1].metrics["slowest_process_share"].get<double>(), 1.0);
}

TEST(NcclTestsJsonImport, CallersKindWinsAndIsNeededWithoutAPerfBinary) {
  auto doc = nlohmann::json::parse(sample());
  doc["args"][0] = "/opt/bench/runner";
  EXPECT_THROW(import(doc.dump()), InputError);
  const auto r = import(doc.dump(), Kind::all_gather);
  EXPECT_EQ(r.records.front().key, "collectives.nccl_all_gather");
}

TEST(NcclTestsJsonImport, NullHalvesAndUncheckedDataAreKeptApart) {
  auto doc = nlohmann::json::parse(sample());
  doc["results"][1]["out_of_place"] = nullptr; // trace replay: in place only
  doc["results"][1]["in_place"]["nwrong"] = nullptr;
  const auto r = import(doc.dump());
  ASSERT_EQ(r.records.size(), 3u);
  EXPECT_EQ(r.records[2].status, Status::ok);
  EXPECT_FALSE(r.records[2].metrics.contains("verified"));
  EXPECT_FALSE(r.records[2].metrics.contains("wrong_elements"));
}

TEST(NcclTestsJsonImport, CpuTimeIsNotCalledWallTime) {
  auto doc = nlohmann::json::parse(sample());
  auto &half = doc["results"][1]["out_of_place"];
  half["cpu_time"] = half["time"];
  half.erase("time");
  const auto r = import(doc.dump());
  EXPECT_FALSE(r.records[2].metrics.contains("wall_time_s"));
  EXPECT_DOUBLE_EQ(r.records[2].metrics["cpu_time_s"].get<double>(), 20e-6);
}

TEST(NcclTestsJsonImport, BadFieldsAreNamedByTheirPath) {
  auto doc = nlohmann::json::parse(sample());
  doc["results"][1]["in_place"]["bus_bw"] = "nan";
  EXPECT_EQ(error_where(doc.dump()), "ar.json: results[1].in_place.bus_bw");
  doc = nlohmann::json::parse(sample());
  doc["results"][0]["size"] = 1e300;
  EXPECT_EQ(error_where(doc.dump()), "ar.json: results[0].size");
  doc = nlohmann::json::parse(sample());
  doc["results"][0]["out_of_place_per_iter"]["skipped_iterations"] = 4;
  EXPECT_EQ(error_where(doc.dump()), "ar.json: results[0].out_of_place_per_iter.times_us");
  doc = nlohmann::json::parse(sample());
  doc["results"][0]["in_place_per_iter"]["per_process_max_times_us"][1].erase(0);
  EXPECT_EQ(error_where(doc.dump()),
            "ar.json: results[0].in_place_per_iter.per_process_max_times_us");
  doc = nlohmann::json::parse(sample());
  doc.erase("results");
  EXPECT_EQ(error_where(doc.dump()), "") << "config and no results: nccl-tests stopped early";
  EXPECT_EQ(import(doc.dump()).failures.size(), 1u);
  doc.erase("config");
  EXPECT_EQ(error_where(doc.dump()), "ar.json: (top level)") << "neither: not nccl-tests' file";
  doc = nlohmann::json::parse(sample());
  doc["config"]["devices"][0].erase("pid");
  EXPECT_EQ(error_where(doc.dump()), "ar.json: config.devices[0]");
}

TEST(NcclTestsJsonImport, AnInfiniteBandwidthIsNotJsonAndTheErrorSaysSo) {
  std::string text = sample();
  const std::string bw = "\"bus_bw\":52.428800";
  text.replace(text.find(bw), bw.size(), "\"bus_bw\":inf");
  try {
    import(text);
    FAIL();
  } catch (const InputError &e) {
    EXPECT_EQ(e.where(), "ar.json");
    EXPECT_NE(std::string(e.what()).find("not JSON"), std::string::npos) << e.what();
    EXPECT_NE(e.fix().find("bare inf"), std::string::npos) << e.fix();
  }
}

// Real output, not a sample: nccl-tests 2.19.6 `all_reduce_perf -b 8 -e 128M -f 4 -g 1 -w 5
// -n 20 -c 1 -I 1 -J` on a machine without a CUDA driver, its JSON and its standard output.
TEST(NcclTestsRealOutput, ARunThatFailedBeforeItsFirstSizeSaysSo) {
  const auto json = import(fixture("all_reduce_no_cuda_driver.json"));
  EXPECT_EQ(json.kind, Kind::all_reduce);
  EXPECT_TRUE(json.records.empty());
  ASSERT_EQ(json.failures.size(), 1u);
  EXPECT_NE(json.failures[0].find("no results"), std::string::npos) << json.failures[0];
  EXPECT_EQ(json.about.at("config").at("iterations"), 20);

  const auto text = import(fixture("all_reduce_no_cuda_driver.txt"));
  EXPECT_EQ(text.kind, Kind::all_reduce);
  EXPECT_TRUE(text.records.empty());
  ASSERT_EQ(text.failures.size(), 2u);
  EXPECT_NE(text.failures[0].find("Test CUDA failure util.cu:674 'CUDA driver version is "
                                  "insufficient for CUDA runtime version'"),
            std::string::npos)
      << text.failures[0];
}

// Real output with results: nccl-tests 2.19.6 beside railgauge in the H200 reference run
// (results/reference/h200-2026-11-26; `-b 8 -e 64M -f 8 -g 1 -w 5 -n 20 -c 1 -I 1 -J`). Its
// sendrecv rows print redop "sum"; the record takes no op, as railgauge's sendrecv has none, or
// `railgauge compare` pairs none of them.
TEST(NcclTestsRealOutput, AnH200RunImportsWithAnOpOnlyWhereTheKindReduces) {
  const auto sendrecv = import(fixture("h200/sendrecv.json"));
  EXPECT_EQ(sendrecv.kind, Kind::sendrecv);
  ASSERT_EQ(sendrecv.records.size(), 16u); // 8 sizes, out of place and in place
  for (const auto &r : sendrecv.records) {
    EXPECT_EQ(r.key, "collectives.nccl_sendrecv");
    EXPECT_FALSE(r.params.contains("op")) << r.params.dump();
  }
  const auto all_reduce = import(fixture("h200/all_reduce.json"));
  const auto text = import(fixture("h200/all_reduce.txt"));
  ASSERT_EQ(all_reduce.records.size(), 16u);
  ASSERT_EQ(text.records.size(), all_reduce.records.size());
  for (std::size_t i = 0; i < text.records.size(); ++i) {
    const auto &r = all_reduce.records[i];
    EXPECT_EQ(r.params.at("op"), "sum");
    EXPECT_EQ(r.params.at("size_bytes"), text.records[i].params.at("size_bytes"));
    // The host clock's mean: the text prints it in µs with 2 decimals, the JSON unrounded.
    EXPECT_NEAR(r.metrics.at("wall_time_s").get<double>(),
                text.records[i].metrics.at("wall_time_s").get<double>(), 0.006e-6)
        << r.params.dump();
    EXPECT_EQ(r.metrics.at("time_s").at("n"), 20); // -I 1: every iteration's event time
  }
}

} // namespace
} // namespace railgauge::importers
