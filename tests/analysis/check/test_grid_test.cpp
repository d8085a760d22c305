// The test x part grid that heads a check of a few nodes (analysis/check/test_grid.h): each cell
// the rule's verdict on that part, from synthetic fleets in the shape railgauge writes.
#include <sstream>

#include <gtest/gtest.h>

#include "analysis/check/check_output.h"
#include "analysis/check/evaluate.h"
#include "analysis/check/test_grid.h"
#include "tests/analysis/check/check_test_support.h"

namespace railgauge::check {
namespace {

using namespace support;

// The cells of `rule`'s row in the grid titled `title`, split on blanks; empty when absent.
std::vector<std::string> row_of(const std::string &grid, const std::string &title,
                                const std::string &rule) {
  const auto at = grid.find(title);
  if (at == std::string::npos)
    return {};
  std::istringstream in(grid.substr(at, grid.find("\n\n", at) - at));
  for (std::string line; std::getline(in, line);) {
    std::istringstream words(line);
    std::vector<std::string> cells;
    for (std::string w; words >> w;)
      cells.push_back(w);
    if (!cells.empty() && cells[0] == rule)
      return {cells.begin() + 1, cells.end()};
  }
  return {};
}

CheckResult judged(int nodes, const std::string &extra = "") {
  auto fleet = make_fleet({.slow_gpu = true, .failed_record = true}, nodes, 8);
  auto set = rules(std::string(kGemmRules) + extra);
  return evaluate(set, fleet);
}

TEST(TestGrid, EachGpuColumnReadsItsVerdictPerRule) {
  // Three nodes: few enough for a grid each. node03 gpu5 is 8 % slow (the fleet rule fails it,
  // the absolute floor passes it); node02 gpu0 holds a record whose data check failed.
  const auto r = judged(3);
  const auto grid = render_test_grid(r);
  const std::vector<std::string> header = {"node", "gpu0", "gpu1", "gpu2", "gpu3",
                                           "gpu4", "gpu5", "gpu6", "gpu7"};
  EXPECT_NE(grid.find("Test x part on node01 (node and GPUs)"), std::string::npos) << grid;
  EXPECT_NE(grid.find("Test x part on node01 (NICs)"), std::string::npos) << grid;
  auto slow = row_of(grid, "Test x part on node03 (node and GPUs)", "gemm-relative");
  ASSERT_EQ(slow.size(), header.size()) << grid;
  EXPECT_EQ(slow[0], ".");
  EXPECT_EQ(slow[6], "FAIL") << grid;
  for (std::size_t g = 1; g < slow.size(); ++g)
    if (g != 6)
      EXPECT_EQ(slow[g], "PASS") << "gpu" << g - 1 << "\n" << grid;
  EXPECT_EQ(row_of(grid, "Test x part on node03 (node and GPUs)", "gemm-absolute")[6], "PASS");
  const auto status = row_of(grid, "Test x part on node02 (node and GPUs)", "record-status");
  ASSERT_EQ(status.size(), header.size()) << grid;
  EXPECT_EQ(status[1], "FAIL") << grid;
  EXPECT_EQ(status[2], "PASS") << grid;
  // The grid heads the console table, before the node rows.
  const auto table = render_table(r);
  EXPECT_LT(table.find("Test x part on node01"), table.find("host    part"));
  EXPECT_NE(render_markdown(r).find("| compute | gemm-relative | . | PASS |"), std::string::npos);
}

TEST(TestGrid, ARuleThatCannotReadAValueIsMissNotPass) {
  // A rule on a key no record holds: every GPU's cell says it could not be read.
  const auto r = judged(1, R"(
  - id: hbm-floor
    category: memory
    severity: fail
    select: {key: memory.hbm_nothing}
    metric: metrics.bandwidth_gbytes_per_s
    compare: ">="
    value: 3000
)");
  const auto grid = render_test_grid(r);
  const auto node_row = row_of(grid, "Test x part on node01 (node and GPUs)", "hbm-floor");
  ASSERT_FALSE(node_row.empty()) << grid;
  EXPECT_EQ(std::count(node_row.begin(), node_row.end(), "PASS"), 0) << grid;
  EXPECT_GE(std::count(node_row.begin(), node_row.end(), "MISS"), 1) << grid;
}

TEST(TestGrid, AFleetOfMoreThanFourNodesHasTheNodeTableAlone) {
  const auto r = judged(5);
  EXPECT_EQ(render_test_grid(r), "");
  EXPECT_EQ(render_table(r).find("Test x part"), std::string::npos);
}

} // namespace
} // namespace railgauge::check
