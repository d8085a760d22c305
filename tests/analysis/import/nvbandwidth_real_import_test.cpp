// nvbandwidth logs from real machines: excerpts from NVIDIA/nvbandwidth issues and an 8 x H800
// run, whole and with the faults a burn-in must not pass (a matrix cut short, a GPU whose peers
// read N/A).
#include <fstream>
#include <sstream>

#include <gtest/gtest.h>

#include "analysis/import/nvbandwidth_import.h"

namespace railgauge::importers {
namespace {

std::string read_whole_file(const std::string &path) {
  std::ifstream in(path);
  EXPECT_TRUE(in.good()) << path;
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

const NvbTestcase *testcase_named(const NvbDocument &doc, const std::string &name) {
  for (const auto &testcase : doc.testcases)
    if (testcase.name == name)
      return &testcase;
  return nullptr;
}

std::vector<const Record *> records_of_key(const std::vector<Record> &records,
                                           const std::string &key) {
  std::vector<const Record *> of;
  for (const auto &record : records)
    if (record.key == key)
      of.push_back(&record);
  return of;
}

// Real excerpts from NVIDIA/nvbandwidth issues (tests/fixtures/nvbandwidth/real/README.md).
std::string real_excerpt(const std::string &name) {
  return read_whole_file(std::string(RAILGAUGE_TEST_FIXTURES) + "/nvbandwidth/real/" + name);
}

TEST(NvbandwidthReal, AnExcerptWithoutItsRunningLineIsNamedByItsSumLine) {
  const auto name = "issue50_a6000x6_d2d_read_ce_EXTRACT.txt";
  const NvbDocument doc = parse_nvbandwidth(real_excerpt(name), name);
  const auto *d2d = testcase_named(doc, "device_to_device_memcpy_read_ce");
  ASSERT_NE(d2d, nullptr);
  ASSERT_EQ(d2d->matrices.size(), 1u);
  EXPECT_EQ(d2d->matrices[0].values.size(), 6u);
  EXPECT_FALSE(d2d->matrices[0].values[0][0].has_value()); // N/A diagonal
  EXPECT_DOUBLE_EQ(*d2d->matrices[0].values[0][3], 21.95);
  EXPECT_NE(doc.problems.front().find("named from the SUM line"), std::string::npos);
}

TEST(NvbandwidthReal, DeviceNamesWithAndWithoutABusId) {
  const auto name = "issue48_h20x8_device_local_copy_EXTRACT.txt";
  const NvbDocument doc = parse_nvbandwidth(real_excerpt(name), name);
  EXPECT_EQ(doc.host, "sglang-host-cuda");
  ASSERT_EQ(doc.device_names.size(), 8u);
  EXPECT_EQ(doc.device_names[7], "NVIDIA H20-3e");
  EXPECT_EQ(doc.device_pci[7], "0000:da:00.0");
  // nvbandwidth v0.4 prints the name alone ("Device 0: NVIDIA H100 80GB HBM3").
  const NvbDocument v04 = parse_nvbandwidth("nvbandwidth Version: v0.4\n\nDevice 0: NVIDIA H100 "
                                            "80GB HBM3\nDevice 1: NVIDIA H100 80GB HBM3\n",
                                            "v0.4 header");
  ASSERT_EQ(v04.device_names.size(), 2u);
  EXPECT_EQ(v04.device_names[1], "NVIDIA H100 80GB HBM3");
  EXPECT_EQ(v04.device_pci[1], "");
}

// The real 8 x H800 run (tests/fixtures/verdicts/real, its README names the source).
std::string h800_text() {
  return read_whole_file(
      std::string(RAILGAUGE_TEST_FIXTURES) +
      "/verdicts/real/llmaction_h800x8_nvbandwidth_v0.2_all_testcases_EXTRACT.txt");
}

TEST(NvbandwidthReal, AGpuByGpuMatrixCutAtALineEndIsNotComplete) {
  // Cut after row 3 of the 8 x 8 read matrix, at a line's end: its four rows read as complete,
  // GPUs 4-7 never judged, and the node passed.
  std::string text = h800_text();
  const auto matrix = text.find("Running device_to_device_memcpy_read_ce.");
  text = text.substr(0, text.find("\n4 ", matrix) + 1);
  const NvbDocument doc = parse_nvbandwidth(text, "cut.txt");
  const auto records = nvbandwidth_records(doc, "r", "");
  const auto d2d = records_of_key(records, "import.nvbandwidth.device_to_device_memcpy_read_ce");
  ASSERT_EQ(d2d.size(), 1u);
  EXPECT_EQ(d2d[0]->status, Status::error);
  ASSERT_FALSE(doc.problems.empty());
  EXPECT_NE(doc.problems.front().find("rows 0 1 2 3 under columns 0 1 2 3 4 5 6 7"),
            std::string::npos)
      << doc.problems.front();

  // A row lost in the middle: the same.
  text = h800_text();
  const auto row5 = text.find("\n5 ", text.find("Running device_to_device_memcpy_read_ce."));
  text.erase(row5, text.find('\n', row5 + 1) - row5);
  const NvbDocument lost = parse_nvbandwidth(text, "lost.txt");
  EXPECT_EQ(records_of_key(nvbandwidth_records(lost, "r", ""),
                           "import.nvbandwidth.device_to_device_memcpy_read_ce")
                .front()
                ->status,
            Status::error);
}

TEST(NvbandwidthReal, AnNaOffTheDiagonalIsAPairThatCouldNotCopy) {
  // nvbandwidth leaves a cell unset where peer access cannot be enabled: GPU 3's row of N/A
  // was skipped as if each were a GPU with itself, and GPU 3 passed with no peer figure.
  std::string text = h800_text();
  const auto matrix = text.find("Running device_to_device_memcpy_read_ce.");
  const auto row3 = text.find("\n3 ", matrix) + 1;
  text.replace(row3, text.find('\n', row3) - row3,
               "3       N/A       N/A       N/A       N/A       N/A       N/A       N/A       N/A");
  const auto records = nvbandwidth_records(parse_nvbandwidth(text, "gpu3.txt"), "r", "");
  int failed = 0, measured = 0;
  for (const auto *r :
       records_of_key(records, "import.nvbandwidth.device_to_device_memcpy_read_ce")) {
    EXPECT_NE(r->params["row"], r->params["column"]) << "the diagonal is never a record";
    if (r->status == Status::failed) {
      ++failed;
      EXPECT_EQ(r->params["row"], "3");
      EXPECT_NE(r->reason.value_or("").find("N/A"), std::string::npos) << r->reason.value_or("");
      EXPECT_FALSE(r->metrics.contains("bandwidth_gbytes_per_s"));
    } else {
      ++measured;
    }
  }
  EXPECT_EQ(failed, 7);
  EXPECT_EQ(measured, 49);
}

TEST(NvbandwidthReal, AMultinodeMatrixIsOfProcessesNotThisNodesGpus) {
  // 2 nodes x 4 GPUs: rows 4-7 were recorded as GPUs 4-7 of one host.
  const auto name = "nvblog_multinode_2x4_d2d_read_ce_EXTRACT.txt";
  const auto records = nvbandwidth_records(parse_nvbandwidth(real_excerpt(name), name), "r", "");
  const auto cells =
      records_of_key(records, "import.nvbandwidth.multinode_device_to_device_memcpy_read_ce");
  ASSERT_EQ(cells.size(), 56u);
  for (const auto *r : cells) {
    EXPECT_EQ(r->params["row_kind"], "process");
    EXPECT_FALSE(r->device.contains("gpu")) << r->device.dump();
    EXPECT_FALSE(r->device.contains("pci")) << r->device.dump();
  }
}

} // namespace
} // namespace railgauge::importers
