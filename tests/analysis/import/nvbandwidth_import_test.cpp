// nvbandwidth's text and JSON output into records, on format samples written from its output
// code (tests/fixtures/nvbandwidth/two_gpus.*, numbers invented) and on real output of a run that
// found no CUDA driver (no_cuda_driver.*), and the `import nvbandwidth` run directory.
#include <algorithm>
#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>

#include <fmt/format.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include "analysis/import/nvbandwidth_import.h"
#include "harness/error.h"
#include "harness/record_io.h"

namespace railgauge::importers {
namespace {

namespace fs = std::filesystem;

std::string fixture_path(const std::string &name) {
  return std::string(RAILGAUGE_TEST_FIXTURES) + "/nvbandwidth/" + name;
}

std::string slurp(const std::string &path) {
  std::ifstream in(path);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

const NvbTestcase *find(const NvbDocument &doc, const std::string &name) {
  for (const auto &t : doc.testcases)
    if (t.name == name)
      return &t;
  return nullptr;
}

std::vector<const Record *> of_key(const std::vector<Record> &records, const std::string &key) {
  std::vector<const Record *> out;
  for (const auto &r : records)
    if (r.key == key)
      out.push_back(&r);
  return out;
}

TEST(NvbandwidthText, ReadsHeaderDevicesAndMatrices) {
  const NvbDocument doc = parse_nvbandwidth(slurp(fixture_path("two_gpus.txt")), "two_gpus.txt");
  EXPECT_EQ(doc.format, "text");
  EXPECT_EQ(doc.version, "v0.8");
  EXPECT_EQ(doc.driver_version, "550.54.15");
  EXPECT_EQ(doc.cuda_runtime_version, "12040");
  EXPECT_EQ(doc.host, "node017");
  EXPECT_EQ(doc.device_pci, (std::vector<std::string>{"0000:19:00.0", "0000:3b:00.0"}));
  EXPECT_EQ(doc.device_names.at(0), "NVIDIA H100 80GB HBM3");
  ASSERT_EQ(doc.testcases.size(), 5u);

  const auto *h2d = find(doc, "host_to_device_memcpy_ce");
  ASSERT_TRUE(h2d);
  ASSERT_EQ(h2d->matrices.size(), 1u);
  EXPECT_EQ(h2d->matrices[0].values,
            (std::vector<std::vector<std::optional<double>>>{{50.0, 40.0}}));
  EXPECT_EQ(h2d->matrices[0].sum, 90.0);

  const auto *bidir = find(doc, "device_to_device_bidirectional_memcpy_read_ce");
  ASSERT_TRUE(bidir);
  ASSERT_EQ(bidir->matrices.size(), 3u);
  EXPECT_EQ(bidir->matrices[0].variant, "Read1");
  EXPECT_EQ(bidir->matrices[2].variant, "Total");
  EXPECT_FALSE(bidir->matrices[1].values[0][0].has_value()) << "N/A on the diagonal";
  EXPECT_EQ(bidir->matrices[1].values[0][1], 310.0);

  const auto *failed = find(doc, "all_to_host_memcpy_ce");
  ASSERT_TRUE(failed);
  EXPECT_EQ(failed->status, "Error");
  EXPECT_EQ(failed->error, "cudaErrorInvalidValue in memcpy.cpp:120");
  // The text form prints "Waived: " without the testcase's name: kept as a problem.
  ASSERT_EQ(doc.problems.size(), 1u);
  EXPECT_NE(doc.problems[0].find("two_gpus.txt:29"), std::string::npos) << doc.problems[0];
}

TEST(NvbandwidthText, SumsAgreeWithTheCells) {
  const NvbDocument doc = parse_nvbandwidth(slurp(fixture_path("two_gpus.txt")), "two_gpus.txt");
  for (const auto &t : doc.testcases)
    for (const auto &m : t.matrices) {
      double sum = 0;
      for (const auto &row : m.values)
        for (const auto &v : row)
          sum += v.value_or(0.0);
      ASSERT_TRUE(m.sum) << t.name;
      EXPECT_NEAR(sum, *m.sum, 0.01) << t.name << " " << m.variant;
    }
}

TEST(NvbandwidthText, OneRecordPerMeasuredCell) {
  const NvbDocument doc = parse_nvbandwidth(slurp(fixture_path("two_gpus.txt")), "two_gpus.txt");
  const auto records = nvbandwidth_records(doc, "run-1", "");
  // h2d 2 + d2h 2 + bidir 3 matrices x 2 off-diagonal + latency 2 + the error record + the
  // waived record of its unnamed "Waived:" line.
  ASSERT_EQ(records.size(), 2u + 2 + 6 + 2 + 1 + 1);
  const auto unnamed = of_key(records, "import.nvbandwidth");
  ASSERT_EQ(unnamed.size(), 1u);
  EXPECT_EQ(unnamed[0]->status, Status::waived);
  const std::regex key_pattern("^[a-z0-9_]+\\.[a-z0-9_.]+$"); // record.schema.json
  for (const auto &r : records) {
    EXPECT_TRUE(std::regex_match(r.key, key_pattern)) << r.key;
    EXPECT_EQ(r.host, "node017");
    EXPECT_EQ(r.run, "run-1");
    for (const auto &[name, value] : r.params.items())
      EXPECT_TRUE(value.is_primitive()) << name << " must be a scalar param";
    const Record back = Record::from_json(r.to_json());
    EXPECT_EQ(back.to_json(), r.to_json());
  }
  const auto h2d = of_key(records, "import.nvbandwidth.host_to_device_memcpy_ce");
  ASSERT_EQ(h2d.size(), 2u);
  EXPECT_EQ(h2d[1]->status, Status::ok);
  EXPECT_EQ(h2d[1]->metrics["bandwidth_gbytes_per_s"], 40.0);
  EXPECT_EQ(h2d[1]->metrics["matrix_sum_gbytes_per_s"], 90.0);
  EXPECT_EQ(h2d[1]->params["row_kind"], "cpu");
  EXPECT_EQ(h2d[1]->params["column"], "1");
  EXPECT_EQ(h2d[1]->params["direction"], "row_to_column");
  EXPECT_EQ(h2d[1]->params["engine"], "ce");
  EXPECT_EQ(h2d[1]->device["pci"], "0000:3b:00.0") << "the column's GPU";
  const auto d2h = of_key(records, "import.nvbandwidth.device_to_host_memcpy_ce");
  ASSERT_EQ(d2h.size(), 2u);
  EXPECT_EQ(d2h[0]->params["direction"], "column_to_row");

  const auto bidir =
      of_key(records, "import.nvbandwidth.device_to_device_bidirectional_memcpy_read_ce");
  ASSERT_EQ(bidir.size(), 6u);
  EXPECT_EQ(bidir[0]->params["variant"], "Read1");
  EXPECT_EQ(bidir[0]->params["row"], "0");
  EXPECT_EQ(bidir[0]->params["column"], "1");
  EXPECT_EQ(bidir[0]->device["pci"], "0000:19:00.0") << "the row's GPU";
  EXPECT_EQ(bidir[5]->params["variant"], "Total");
  EXPECT_EQ(bidir[5]->metrics["bandwidth_gbytes_per_s"], 610.0);
  // Only the Total is both directions; Read1 is one stream under the other's traffic.
  EXPECT_EQ(bidir[5]->params["bidirectional_figure"], "sum_of_both_directions");
  EXPECT_EQ(bidir[0]->params["bidirectional_figure"], "one_direction");
  EXPECT_FALSE(d2h[0]->params.contains("bidirectional_figure"));

  const auto latency = of_key(records, "import.nvbandwidth.host_device_latency_sm");
  ASSERT_EQ(latency.size(), 2u);
  EXPECT_DOUBLE_EQ(latency[0]->metrics["latency_s"].get<double>(), 800e-9);
  EXPECT_FALSE(latency[0]->metrics.contains("bandwidth_gbytes_per_s"));

  const auto error = of_key(records, "import.nvbandwidth.all_to_host_memcpy_ce");
  ASSERT_EQ(error.size(), 1u);
  EXPECT_EQ(error[0]->status, Status::error);
  EXPECT_EQ(error[0]->reason, "nvbandwidth reported: cudaErrorInvalidValue in memcpy.cpp:120");
}

TEST(NvbandwidthJson, ReadsStatusesAndSplitsStackedMatrices) {
  const NvbDocument doc = parse_nvbandwidth(slurp(fixture_path("two_gpus.json")), "two_gpus.json");
  EXPECT_EQ(doc.format, "json");
  EXPECT_EQ(doc.version, "v0.8");
  EXPECT_EQ(doc.cuda_runtime_version, "12040");
  EXPECT_EQ(doc.host, "node017");
  EXPECT_EQ(doc.device_pci, (std::vector<std::string>{"0000:19:00.0", "0000:3b:00.0"}));
  ASSERT_EQ(doc.testcases.size(), 4u);
  const auto *bidir = find(doc, "device_to_device_bidirectional_memcpy_read_ce");
  ASSERT_TRUE(bidir);
  ASSERT_EQ(bidir->matrices.size(), 3u) << "6 rows x 2 columns = 3 stacked 2x2 matrices";
  // Named as the text form names them, so both imports of one run give the same records.
  EXPECT_EQ(bidir->matrices[0].variant, "Read1");
  EXPECT_EQ(bidir->matrices[1].variant, "Read2");
  EXPECT_EQ(bidir->matrices[2].variant, "Total");
  EXPECT_EQ(bidir->matrices[2].values[1][0], 610.0);
  EXPECT_FALSE(bidir->matrices[0].sum) << "the writer keeps only the last matrix's sum";
  EXPECT_EQ(bidir->matrices[2].sum, 1220.0);

  const auto records = nvbandwidth_records(doc, "run-2", "override");
  const auto waived = of_key(records, "import.nvbandwidth.host_to_device_memcpy_sm");
  ASSERT_EQ(waived.size(), 1u);
  EXPECT_EQ(waived[0]->status, Status::waived);
  EXPECT_TRUE(waived[0]->reason.has_value());
  const auto h2d = of_key(records, "import.nvbandwidth.host_to_device_memcpy_ce");
  ASSERT_EQ(h2d.size(), 2u);
  EXPECT_EQ(h2d[0]->metrics["bandwidth_gbytes_per_s"], 50.0);
  EXPECT_EQ(h2d[0]->host, "override");
  EXPECT_EQ(h2d[0]->params["source_format"], "json");
  const auto error = of_key(records, "import.nvbandwidth.all_to_host_memcpy_ce");
  ASSERT_EQ(error.size(), 1u);
  EXPECT_EQ(error[0]->status, Status::error);
}

TEST(NvbandwidthImport, TextAndJsonOfOneRunGiveTheSameCells) {
  const auto cells = [](const std::string &name) {
    const NvbDocument doc = parse_nvbandwidth(slurp(fixture_path(name)), name);
    std::vector<std::string> out;
    for (const auto &r : nvbandwidth_records(doc, "run", "node017")) {
      auto params = r.params;
      params.erase("source_format");
      params.erase("caption"); // the JSON form keeps only the last matrix's caption
      out.push_back(fmt::format("{} {} {} {}", r.key, params.dump(), r.device.dump(),
                                r.metrics.value("bandwidth_gbytes_per_s", -1.0)));
    }
    std::sort(out.begin(), out.end());
    return out;
  };
  const auto text = cells("two_gpus.txt");
  std::vector<std::string> bidir_text, bidir_json;
  for (const auto &c : text)
    if (c.find("bidirectional_memcpy_read_ce") != std::string::npos)
      bidir_text.push_back(c);
  for (const auto &c : cells("two_gpus.json"))
    if (c.find("bidirectional_memcpy_read_ce") != std::string::npos)
      bidir_json.push_back(c);
  ASSERT_EQ(bidir_text.size(), 6u);
  EXPECT_EQ(bidir_json, bidir_text);
}

TEST(NvbandwidthImport, SingleRowGpuMatricesBelongToTheirColumnsGpu) {
  // all_to_one_write_ce prints a 1 x n GPU(row) matrix: cell (0, c) is GPU c written to by all
  // the others (nvbandwidth's allToOneHelper), so GPU 1's figure must not be pinned on GPU 0.
  const std::string text = "nvbandwidth Version: v0.8\n\n"
                           "Device 0: NVIDIA H100 80GB HBM3 (00000000:19:00)\n"
                           "Device 1: NVIDIA H100 80GB HBM3 (00000000:3b:00)\n\n"
                           "Running all_to_one_write_ce.\n"
                           "memcpy CE GPU(row) <- GPU(column) bandwidth (GB/s)\n"
                           "           0         1\n"
                           " 0    350.00    120.00\n\n"
                           "SUM all_to_one_write_ce 470.00\n";
  const auto records = nvbandwidth_records(parse_nvbandwidth(text, "t.txt"), "run", "h");
  ASSERT_EQ(records.size(), 2u);
  EXPECT_EQ(records[0].device["pci"], "0000:19:00.0");
  EXPECT_EQ(records[1].device["pci"], "0000:3b:00.0");
  EXPECT_EQ(records[1].metrics["bandwidth_gbytes_per_s"], 120.0);
}

TEST(NvbandwidthImport, LatencyIsAPointerChaseNotABidirectionalCopy) {
  const NvbDocument doc = parse_nvbandwidth(slurp(fixture_path("two_gpus.txt")), "two_gpus.txt");
  const auto records = nvbandwidth_records(doc, "run", "");
  const auto latency = of_key(records, "import.nvbandwidth.host_device_latency_sm");
  ASSERT_EQ(latency.size(), 2u);
  EXPECT_EQ(latency[0]->params["direction"], "pointer_chase");
  EXPECT_FALSE(latency[0]->params.contains("bidirectional_figure"));
}

// The real JSON of DCGM's nvbandwidth v0.5 test input ends its latency caption with a space,
// "memory latency SM CPU(row) <-> GPU(column) (ns) ": still a latency of 649.9 ns, never a
// bidirectional bandwidth of 649.9 GB/s that a copy rule would judge.
TEST(NvbandwidthImport, TheRealJsonsLatencyWithItsTrailingSpaceIsALatency) {
  const std::string path = std::string(RAILGAUGE_TEST_FIXTURES) +
                           "/verdicts/real/dcgm_testinput_nvbandwidth_v0.5_json_1gpu_EXTRACT.json";
  const auto records = nvbandwidth_records(parse_nvbandwidth(slurp(path), path), "run", "");
  const auto latency = of_key(records, "import.nvbandwidth.host_device_latency_sm");
  ASSERT_EQ(latency.size(), 1u);
  EXPECT_EQ(latency[0]->params["direction"], "pointer_chase");
  EXPECT_NEAR(latency[0]->metrics["latency_s"].get<double>(), 649.879e-9, 1e-12);
  EXPECT_FALSE(latency[0]->metrics.contains("bandwidth_gbytes_per_s"));
}

TEST(NvbandwidthImport, BadInputIsAnInputErrorNamingTheFile) {
  EXPECT_THROW(parse_nvbandwidth("", "empty.txt"), InputError);
  EXPECT_THROW(parse_nvbandwidth("hello\nworld\n", "prose.txt"), InputError);
  try {
    parse_nvbandwidth("{\"nvbandwidth\": [", "cut.json");
    FAIL() << "no exception";
  } catch (const InputError &e) {
    EXPECT_EQ(e.where(), "cut.json");
    EXPECT_FALSE(e.fix().empty());
  }
  EXPECT_THROW(parse_nvbandwidth("{\"other\": {}}", "other.json"), InputError);
}

// nvbandwidth's message for an unknown -t went to std::regex, which recursed per character: a
// testcase name of 30,000 characters overflowed the stack. JSON nested 100,000 deep overflowed
// it when copied. Both are now InputErrors naming where.
TEST(NvbandwidthImport, AnOverlongLineOrDeepJsonIsAnInputErrorNotACrash) {
  try {
    parse_nvbandwidth("nvbandwidth Version: v0.7\nERROR: Testcase " + std::string(30000, 'x') +
                          " not found!\n",
                      "long.txt");
    FAIL() << "no InputError";
  } catch (const InputError &e) {
    EXPECT_EQ(e.where(), "long.txt:2");
    EXPECT_NE(e.problem().find("a line longer than 8192 bytes"), std::string::npos) << e.what();
  }
  try {
    parse_nvbandwidth(R"({"nvbandwidth": {"testcases": )" + std::string(100000, '[') +
                          std::string(100000, ']') + "}}",
                      "deep.json");
    FAIL() << "no InputError";
  } catch (const InputError &e) {
    EXPECT_EQ(e.where(), "deep.json");
    EXPECT_NE(e.problem().find("nested more than 64 deep"), std::string::npos) << e.what();
  }
  // A name as long as a real one still reads as an unknown testcase.
  const auto doc = parse_nvbandwidth("nvbandwidth Version: v0.7\nERROR: Testcase " +
                                         std::string(200, 'x') + " not found!\n",
                                     "short.txt");
  ASSERT_EQ(doc.testcases.size(), 1u);
  EXPECT_EQ(doc.testcases[0].name, std::string(200, 'x'));
}

TEST(NvbandwidthImport, ARunStoppedBeforeItsFirstTestcaseIsOneErrorRecord) {
  for (const std::string name : {"no_cuda_driver.txt", "no_cuda_driver.json"}) {
    SCOPED_TRACE(name);
    const NvbDocument doc = parse_nvbandwidth(slurp(fixture_path(name)), name);
    EXPECT_EQ(doc.version, "v0.8");
    EXPECT_TRUE(doc.testcases.empty());
    EXPECT_NE(doc.run_error.find("in expression cuInit(0)"), std::string::npos) << doc.run_error;
    EXPECT_FALSE(doc.problems.empty()) << "the import exits 1";
    const auto records = nvbandwidth_records(doc, "r", "node");
    ASSERT_EQ(records.size(), 1u);
    EXPECT_EQ(records[0].key, "import.nvbandwidth");
    EXPECT_EQ(records[0].status, Status::error);
    EXPECT_NE(records[0].reason->find("stopped after 0 testcase(s)"), std::string::npos);
    EXPECT_NE(records[0].reason->find("cuInit(0)"), std::string::npos);
  }
  // Standard output alone (the message went to standard error): the header, then nothing.
  const NvbDocument header_only =
      parse_nvbandwidth("nvbandwidth Version: v0.8\nBuilt from Git version: \n\n", "out.txt");
  EXPECT_NE(header_only.run_error.find("no testcase"), std::string::npos);
  EXPECT_EQ(nvbandwidth_records(header_only, "r", "node").size(), 1u);
}

TEST(NvbandwidthImport, AnErrorAfterSomeTestcasesKeepsTheirRecordsAndEndsWithIt) {
  auto j = nlohmann::json::parse(slurp(fixture_path("two_gpus.json")));
  j["nvbandwidth"]["error"] = "[CUDA_ERROR_LAUNCH_FAILED] unspecified launch failure in "
                              "expression cuStreamSynchronize(stream) in ... : memcpy.cpp:480\n";
  const NvbDocument doc = parse_nvbandwidth(j.dump(), "cut.json");
  ASSERT_EQ(doc.testcases.size(), 4u);
  const auto records = nvbandwidth_records(doc, "r", "");
  ASSERT_EQ(records.size(), 2u + 1 + 6 + 1 + 1);
  EXPECT_EQ(records.back().key, "import.nvbandwidth");
  EXPECT_EQ(records.back().status, Status::error);
  EXPECT_NE(records.back().reason->find("stopped after 4 testcase(s): [CUDA_ERROR_LAUNCH_FAILED]"),
            std::string::npos)
      << *records.back().reason;
  EXPECT_EQ(of_key(records, "import.nvbandwidth.host_to_device_memcpy_ce").size(), 2u);
}

TEST(NvbandwidthImport, AnErrorDuringATestcaseNamesIt) {
  auto j = nlohmann::json::parse(slurp(fixture_path("two_gpus.json")));
  j["nvbandwidth"]["testcases"].push_back({{"name", "device_local_copy"}, {"status", "Running"}});
  j["nvbandwidth"]["error"] = "[CUDA_ERROR_ILLEGAL_ADDRESS] an illegal memory access in ...";
  const auto records = nvbandwidth_records(parse_nvbandwidth(j.dump(), "cut.json"), "r", "");
  EXPECT_EQ(records.back().key, "import.nvbandwidth");
  EXPECT_NE(records.back().reason->find("stopped during testcase device_local_copy (after 4 "
                                        "finished): [CUDA_ERROR_ILLEGAL_ADDRESS]"),
            std::string::npos)
      << *records.back().reason;
}

TEST(NvbandwidthText, WaivedLinesAloneAreOneWaivedRecordNotAnError) {
  // A one-GPU node asked for GPU-to-GPU testcases: each prints "Waived: " and no "Running" line.
  const std::string text = "nvbandwidth Version: v0.8\nBuilt from Git version: v0.8\n\n"
                           "node017\nDevice 0: NVIDIA H100 80GB HBM3 (00000000:19:00)\n\n"
                           "Waived: \nWaived: \n";
  const NvbDocument doc = parse_nvbandwidth(text, "waived.txt");
  EXPECT_TRUE(doc.run_error.empty()) << doc.run_error;
  EXPECT_EQ(doc.unnamed_waived, 2);
  EXPECT_EQ(doc.problems.size(), 2u) << "kept as warnings: the import exits 1";
  const auto records = nvbandwidth_records(doc, "r", "");
  ASSERT_EQ(records.size(), 1u);
  EXPECT_EQ(records[0].key, "import.nvbandwidth");
  EXPECT_EQ(records[0].status, Status::waived);
  EXPECT_NE(records[0].reason->find("waived 2 testcase(s)"), std::string::npos);
}

TEST(NvbandwidthText, AnUnknownTestcaseIsItsOwnErrorAndTheOthersKeepTheirCells) {
  // nvbandwidth prints "ERROR: Testcase <id> not found!" for an unknown -t and goes on.
  std::string text = slurp(fixture_path("two_gpus.txt"));
  const auto d2h = text.find("Running device_to_host_memcpy_ce.");
  ASSERT_NE(d2h, std::string::npos);
  text.insert(d2h, "ERROR: Testcase foo_ce not found!\nERROR: Testcase index 99 out of bound!\n");
  const NvbDocument doc = parse_nvbandwidth(text, "unknown.txt");
  EXPECT_TRUE(doc.run_error.empty()) << doc.run_error;
  const auto records = nvbandwidth_records(doc, "r", "");
  EXPECT_EQ(of_key(records, "import.nvbandwidth.host_to_device_memcpy_ce").size(), 2u);
  const auto d2h_records = of_key(records, "import.nvbandwidth.device_to_host_memcpy_ce");
  ASSERT_EQ(d2h_records.size(), 2u);
  EXPECT_EQ(d2h_records[0]->status, Status::ok);
  const auto foo = of_key(records, "import.nvbandwidth.foo_ce");
  ASSERT_EQ(foo.size(), 1u);
  EXPECT_EQ(foo[0]->status, Status::error);
  EXPECT_EQ(foo[0]->reason, "nvbandwidth reported: Testcase foo_ce not found!");
  EXPECT_EQ(of_key(records, "import.nvbandwidth.99").size(), 1u);
}

TEST(NvbandwidthText, AnErrorBeforeAnyTestcaseIsTheRunError) {
  // Bad arguments: the text form prints the error and the usage on standard output.
  const std::string text = "nvbandwidth Version: v0.8\nBuilt from Git version: v0.8\n\n"
                           "ERROR: Invalid Arguments \n./nvbandwidth -x :\n\n"
                           "nvbandwidth CLI:\n  -h [ --help ]  Produce help message\n";
  const NvbDocument doc = parse_nvbandwidth(text, "usage.txt");
  EXPECT_EQ(doc.run_error, "ERROR: Invalid Arguments");
  const auto records = nvbandwidth_records(doc, "r", "node");
  ASSERT_EQ(records.size(), 1u);
  EXPECT_EQ(records[0].status, Status::error);
  EXPECT_NE(records[0].reason->find("Invalid Arguments"), std::string::npos);
}

TEST(NvbandwidthImport, TruncatedTextKeepsTheCompleteMatrices) {
  std::string text = slurp(fixture_path("two_gpus.txt"));
  // Cut inside the second matrix's row, as a run killed while printing leaves it.
  text = text.substr(0, text.find(" 0     51.00") + 8);
  const NvbDocument doc = parse_nvbandwidth(text, "cut.txt");
  const auto records = nvbandwidth_records(doc, "r", "");
  EXPECT_EQ(of_key(records, "import.nvbandwidth.host_to_device_memcpy_ce").size(), 2u);
  ASSERT_FALSE(doc.problems.empty());
  const auto d2h = of_key(records, "import.nvbandwidth.device_to_host_memcpy_ce");
  ASSERT_EQ(d2h.size(), 1u) << "the broken matrix is not imported, its testcase is an error";
  EXPECT_EQ(d2h[0]->status, Status::error);
}

TEST(NvbandwidthImport, AJsonTestcasePassedWithNoMatrixIsAnError) {
  // "Passed" and no bandwidth_matrix (or none that could be read): no record at all, and the
  // node's failing host-copy floors vanished from its verdict.
  auto doc = nlohmann::json::parse(slurp(fixture_path("two_gpus.json")));
  auto &testcase = doc["nvbandwidth"]["testcases"][0];
  testcase.erase("bandwidth_matrix");
  const auto name = testcase["name"].get<std::string>();
  const auto records = nvbandwidth_records(parse_nvbandwidth(doc.dump(), "j.json"), "r", "");
  const auto of = of_key(records, "import.nvbandwidth." + name);
  ASSERT_EQ(of.size(), 1u);
  EXPECT_EQ(of[0]->status, Status::error);
  EXPECT_NE(of[0]->reason.value_or("").find("no matrix"), std::string::npos)
      << of[0]->reason.value_or("");
}

TEST(NvbandwidthImport, WritesARunDirectory) {
  const fs::path out =
      fs::temp_directory_path() / ("railgauge_nvb_import_" + std::to_string(::getpid()));
  fs::remove_all(out);
  std::ostringstream warnings;
  const ImportResult result =
      import_nvbandwidth_file(fixture_path("two_gpus.json"), out.string(), "",
                              {"railgauge", "import", "nvbandwidth"}, warnings);
  EXPECT_EQ(result.records, 2u + 1 + 6 + 1);
  EXPECT_EQ(result.problems, 0u);
  EXPECT_TRUE(warnings.str().empty()) << warnings.str();
  const RecordsRead read = read_records(result.run_dir + "/records.jsonl");
  EXPECT_TRUE(read.problems.empty());
  EXPECT_EQ(read.records.size(), result.records);
  std::ifstream manifest_file(result.run_dir + "/run.json");
  const auto manifest = nlohmann::json::parse(manifest_file);
  EXPECT_EQ(manifest["status"], "complete");
  EXPECT_EQ(manifest["host"], "node017");
  EXPECT_EQ(manifest["imported"]["tool"], "nvbandwidth");
  EXPECT_EQ(manifest["counts"]["ok"], 8);
  EXPECT_EQ(manifest["counts"]["waived"], 1);
  EXPECT_EQ(manifest["counts"]["error"], 1);
  fs::remove_all(out);
}

} // namespace
} // namespace railgauge::importers
