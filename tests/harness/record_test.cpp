#include "harness/record.h"

#include <filesystem>
#include <fstream>

#include <gtest/gtest.h>

#include "harness/error.h"
#include "harness/record_io.h"

namespace railgauge {
namespace {

Record sample_record() {
  Record r;
  r.run = "2026-11-22T10-00-00Z-node017";
  r.host = "node017";
  r.rank = 3;
  r.key = "memory.host_copy";
  r.params = {{"size_bytes", 4096}, {"threads", 2}};
  r.device = {{"numa", 0}};
  r.metrics = {{"bandwidth_gbytes_per_s", 12.5}};
  r.status = Status::ok;
  r.time_utc = utc_timestamp_now();
  return r;
}

TEST(Record, JsonRoundTrip) {
  const Record r = sample_record();
  const auto j = r.to_json();
  EXPECT_EQ(j["schema"], kRecordSchema);
  EXPECT_TRUE(j["reason"].is_null());
  const Record back = Record::from_json(j);
  EXPECT_EQ(back.to_json(), j);
}

TEST(Record, WaivedCarriesReason) {
  Record r = sample_record();
  r.status = Status::waived;
  r.reason = "no CUDA device";
  const auto back = Record::from_json(r.to_json());
  EXPECT_EQ(back.status, Status::waived);
  EXPECT_EQ(back.reason, "no CUDA device");
}

TEST(Record, FromJsonNamesTheBadField) {
  auto j = sample_record().to_json();
  j.erase("key");
  try {
    Record::from_json(j);
    FAIL();
  } catch (const std::invalid_argument &e) {
    EXPECT_NE(std::string(e.what()).find("'key'"), std::string::npos);
  }
  j = sample_record().to_json();
  j["status"] = "great";
  EXPECT_THROW(Record::from_json(j), std::invalid_argument);
  j = sample_record().to_json();
  j["schema"] = "railgauge.record/0";
  EXPECT_THROW(Record::from_json(j), std::invalid_argument);
  j = sample_record().to_json();
  j["rank"] = "three";
  EXPECT_THROW(Record::from_json(j), std::invalid_argument);
  // A float or an integer out of int's range is refused, never cast (found by fuzz_record_line).
  for (const auto *bad : {"1e300", "2.5", "4294967297", "-1"}) {
    j["rank"] = nlohmann::json::parse(bad);
    EXPECT_THROW(Record::from_json(j), std::invalid_argument) << bad;
  }
}

TEST(Record, TimestampIsIso8601Utc) {
  const auto t = utc_timestamp_now();
  ASSERT_EQ(t.size(), 24u) << t;
  EXPECT_EQ(t[10], 'T');
  EXPECT_EQ(t.back(), 'Z');
}

class RecordFileTest : public ::testing::Test {
protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() /
           ("railgauge_record_test_" + std::to_string(::getpid()));
    std::filesystem::create_directories(dir_);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  std::filesystem::path dir_;
};

TEST_F(RecordFileTest, AppendsOneLinePerRecordAndReadsBack) {
  const auto path = (dir_ / "records.jsonl").string();
  {
    RecordFile file(path);
    file.append(sample_record());
    auto second = sample_record();
    second.key = "memory.host_read";
    file.append(second);
  }
  {
    RecordFile again(path); // appends, never truncates
    again.append(sample_record());
  }
  const auto read = read_records(path);
  EXPECT_TRUE(read.problems.empty());
  ASSERT_EQ(read.records.size(), 3u);
  EXPECT_EQ(read.records[1].key, "memory.host_read");
}

TEST_F(RecordFileTest, TruncatedAndForeignLinesAreReportedWithLineNumbers) {
  const auto path = (dir_ / "records.jsonl").string();
  {
    RecordFile file(path);
    file.append(sample_record());
  }
  {
    std::ofstream out(path, std::ios::app);
    out << "{\"schema\":\"railgauge.record/1\",\"run\":\"x\"}\n";
    out << "{\"schema\":\"railgauge.rec"; // a write cut short
  }
  const auto read = read_records(path);
  EXPECT_EQ(read.records.size(), 1u);
  ASSERT_EQ(read.problems.size(), 2u);
  EXPECT_NE(read.problems[0].find(":2:"), std::string::npos) << read.problems[0];
  EXPECT_NE(read.problems[1].find(":3: not a complete JSON line"), std::string::npos)
      << read.problems[1];
}

// A whole line with bytes that are not UTF-8 says so, not "truncated"; broken JSON that ends
// like a record says it is not valid JSON.
TEST_F(RecordFileTest, ALineNotUtf8OrNotJsonSaysWhich) {
  const auto path = (dir_ / "records.jsonl").string();
  {
    std::ofstream out(path);
    out << "{\"schema\":\"railgauge.record/1\",\"host\":\"n\xff\xfe\"}\n";
    out << "{\"schema\": railgauge}\n";
  }
  const auto read = read_records(path);
  ASSERT_EQ(read.problems.size(), 2u);
  EXPECT_NE(read.problems[0].find(":1: holds bytes that are not UTF-8"), std::string::npos)
      << read.problems[0];
  EXPECT_NE(read.problems[1].find(":2: not valid JSON"), std::string::npos) << read.problems[1];
}

TEST_F(RecordFileTest, UnwritablePathIsAnInputError) {
  EXPECT_THROW(RecordFile((dir_ / "missing" / "records.jsonl").string()), InputError);
  EXPECT_THROW(read_records((dir_ / "none.jsonl").string()), InputError);
}

} // namespace
} // namespace railgauge
