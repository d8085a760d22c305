// What every importer shares (analysis/import/imported_run.h): run ids of a bounded length and
// records handed to the run directory one by one.
#include <filesystem>
#include <fstream>
#include <sstream>
#include <streambuf>

#include <fmt/format.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "analysis/import/imported_run.h"
#include "analysis/import/nccl_tests_import.h"
#include "harness/error.h"
#include "harness/record_io.h"
#include "tests/reliability/temp_dir.h"

namespace railgauge::analysis {
namespace {

// A log of 30 hosts names its node by all of them ("a+b+..."): the run id joined them and the
// run directory could not be made ("File name too long").
TEST(ImportedRun, ARunOfManyHostsHasARunIdOfBoundedLength) {
  testing::TempDir dir("imported_run");
  const std::string file = dir.path() + "/all_reduce.log";
  std::ofstream(file) << "a log\n";
  std::vector<std::string> hosts;
  for (int h = 1; h <= 30; ++h)
    hosts.push_back(fmt::format("gpu-node-with-a-long-name-{:03}", h));
  const std::string node = fmt::format("{}", fmt::join(hosts, "+"));
  const auto run = write_imported_run(dir.path() + "/runs", node, {"railgauge", "import"}, "test",
                                      file, nlohmann::json::object(),
                                      [](const RunIdentity &) { return std::vector<Record>{}; });
  const std::string id = std::filesystem::path(run.dir).filename().string();
  EXPECT_LE(id.size(), 128u) << id;
  EXPECT_NE(id.find("-gpu-node-with-a-long-name-001-and-29-more-"), std::string::npos) << id;
  std::ifstream manifest(run.dir + "/run.json");
  EXPECT_EQ(nlohmann::json::parse(manifest).at("host"), node); // the node keeps every host
  // The digest tells two groups of the same first host apart.
  EXPECT_NE(host_for_run_id(node), host_for_run_id(node + "+one-more"));
  EXPECT_EQ(host_for_run_id("node017"), "node017");
  // One host named longer than the bound (an import's "unknown-<file name>"): cut, not recursed.
  const std::string one(100, 'h');
  EXPECT_EQ(host_for_run_id(one).rfind(std::string(32, 'h') + "-", 0), 0u) << host_for_run_id(one);
  EXPECT_LE(host_for_run_id(one).size(), 64u);
}

// nccl-tests rows without end: the records reach the sink while the log is still being read, so
// an import holds one line, not the log nor its records (500 MB of rows once took 14.7 GB).
class EndlessRows : public std::streambuf {
public:
  int_type underflow() override {
    line_ = rows_++ == 0 ? "# Collective test starting: all_reduce_perf\n"
                         : "  1048576  262144  float  sum  -1  20.0  52.4  52.4  0  19.0  55.1  "
                           "55.1  0\n";
    setg(line_.data(), line_.data(), line_.data() + line_.size());
    return traits_type::to_int_type(line_[0]);
  }
  long rows_ = 0;

private:
  std::string line_;
};

TEST(ImportedRun, NcclTestsRowsAreStreamedNotHeld) {
  EndlessRows rows;
  std::istream in(&rows);
  struct Enough {};
  std::size_t seen = 0;
  try {
    importers::import_nccl_tests_text(in, "endless.log", std::nullopt, "r", "h", [&](Record r) {
      EXPECT_EQ(r.key, "collectives.nccl_all_reduce");
      if (++seen == 1000)
        throw Enough{};
    });
    FAIL() << "an endless log ended";
  } catch (const Enough &) {
  }
  EXPECT_EQ(seen, 1000u);
  EXPECT_LE(rows.rows_, 502); // 500 rows, the header, and the one being read
}

// Failure lines are kept up to a bound and counted beyond it.
TEST(ImportedRun, NcclTestsFailureLinesAreKeptUpToABoundAndCounted) {
  std::string log = "# Collective test starting: all_reduce_perf\n";
  for (int i = 0; i < 25; ++i)
    log += fmt::format("node01: Test CUDA failure common.cu:891 'out of memory' {}\n", i);
  std::istringstream in(log);
  const auto r = importers::import_nccl_tests_text(in, "f.log", std::nullopt, "r", "h");
  ASSERT_EQ(r.failures.size(), importers::kMaxFailuresKept);
  EXPECT_NE(r.failures[18].find("'out of memory' 18"), std::string::npos) << r.failures[18];
  EXPECT_EQ(r.failures.back(), "... and 6 more failure line(s)"); // lines 19 to 24
}

} // namespace
} // namespace railgauge::analysis
