// nccl-tests logs from real machines (tests/fixtures/verdicts/real, its README names each source),
// whole and changed as a user's copy may be: a run's header lines lost, a row dropped, a job
// split into groups, a collective named by --kind that the rows or the header contradict.
#include <fstream>
#include <sstream>

#include <gtest/gtest.h>

#include "analysis/import/nccl_tests_import.h"
#include "analysis/import/nccl_tests_text_rows.h"
#include "harness/error.h"

namespace railgauge::importers {
namespace {

std::string whole_real_log(const std::string &name) {
  std::ifstream file(std::string(RAILGAUGE_TEST_FIXTURES) + "/verdicts/real/" + name);
  EXPECT_TRUE(file.good()) << name;
  std::stringstream text;
  text << file.rdbuf();
  return text.str();
}

TEST(NcclTestsImport, ASecondRunNothingNamesIsRefusedNotGivenTheFirstsCollective) {
  // The real 8 x H100 log of five collectives without its "Collective test starting" lines,
  // named all_reduce by --kind or its file's name: all_gather's 361.9 GB/s at 16 GiB was judged
  // as all_reduce's and a healthy node drained.
  std::string log;
  std::istringstream lines(whole_real_log("xxrjun_h100x8_1node_cnode3-002_5coll.log"));
  for (std::string line; std::getline(lines, line);)
    if (line.find("Collective test") == std::string::npos)
      log += line + "\n";
  std::istringstream in(log);
  try {
    import_nccl_tests_text(in, "nccl_all_reduce.log", Kind::all_reduce, "r", "h");
    FAIL() << "two runs, one collective named";
  } catch (const InputError &e) {
    EXPECT_NE(std::string(e.what()).find("another run starts here"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("nccl_all_reduce.log:"), std::string::npos) << e.what();
  }
}

// The real 8 x H100 all_reduce of cnode3-007, its header line dropped, as one group of an
// NCCL_TESTS_SPLIT="DIV 8" job on two nodes: 16 rank lines, busbw over each group's 8.
std::string split_in_two_groups() {
  std::string log;
  std::string second_group;
  std::istringstream lines(whole_real_log("xxrjun_h100x8_1node_cnode3-007_5coll_healthy.log"));
  int line_no = 0;
  for (std::string line; std::getline(lines, line) && ++line_no < 36;) {
    if (line.find("Collective test starting") != std::string::npos)
      continue;
    if (line.find("Group  0") != std::string::npos) {
      std::string other = line;
      other.replace(other.find("Group  0"), 8, "Group  1");
      other.replace(other.find("cnode3-007"), 10, "cnode3-008");
      second_group += other + "\n";
    } else if (!second_group.empty()) {
      log += second_group;
      second_group.clear();
    }
    log += line + "\n";
  }
  return log;
}

TEST(NcclTestsImport, TheBusFactorIsOneGroupsAndHeldOnlyWhereTheCallerNamedTheKind) {
  std::istringstream split(split_in_two_groups());
  const auto r = import_nccl_tests_text(split, "split.log", Kind::all_reduce, "r", "h");
  EXPECT_EQ(r.records.size(), 20u); // its 10 sizes, out of place and in place
  EXPECT_EQ(r.ranks.size(), 16u);
  std::istringstream wrong(split_in_two_groups());
  try {
    import_nccl_tests_text(wrong, "split.log", Kind::all_gather, "r", "h");
    FAIL() << "all_reduce's rows taken as all_gather's";
  } catch (const InputError &e) {
    EXPECT_NE(std::string(e.what()).find("at the 8 ranks listed"), std::string::npos) << e.what();
  }
  // The header names all_reduce_perf and --kind another: refused, whatever the rows.
  std::istringstream named(whole_real_log("xxrjun_h100x8_1node_cnode3-007_5coll_healthy.log"));
  try {
    import_nccl_tests_text(named, "named.log", Kind::sendrecv, "r", "h");
    FAIL() << "--kind over the header";
  } catch (const InputError &e) {
    EXPECT_NE(std::string(e.what()).find("header names all_reduce_perf, and --kind names sendrecv"),
              std::string::npos)
        << e.what();
  }
}

TEST(NcclTestsImport, ARowLostInTheMiddleDisagreesWithTheAverage) {
  // The real 8 x H100 log's all_reduce without its 4 GiB row: the eight rows left imported as
  // the whole sweep, and nothing said a size was lost.
  std::string log;
  std::istringstream lines(whole_real_log("xxrjun_h100x8_1node_cnode3-002_5coll.log"));
  bool dropped = false;
  for (std::string line; std::getline(lines, line);) {
    if (!dropped && line.starts_with("  4294967296 ")) {
      dropped = true;
      continue;
    }
    log += line + "\n";
  }
  ASSERT_TRUE(dropped);
  std::istringstream in(log);
  const auto r = import_nccl_tests_text(in, "dropped.log", std::nullopt, "r", "h");
  ASSERT_EQ(r.failures.size(), 1u);
  EXPECT_NE(r.failures[0].find("dropped.log:30: nccl-tests printed an average bus bandwidth of "
                               "437.957 GB/s, and the 9 result row(s) above it average 433.3"),
            std::string::npos)
      << r.failures[0];
  EXPECT_EQ(r.failed_kind, Kind::all_reduce);
  EXPECT_EQ(r.records.size(), 98u) << "every row read is kept: 49 of the five runs' 50";
  // The whole log agrees with each of its five averages.
  std::istringstream whole(whole_real_log("xxrjun_h100x8_1node_cnode3-002_5coll.log"));
  EXPECT_TRUE(import_nccl_tests_text(whole, "whole.log", std::nullopt, "r", "h").failures.empty());
}

TEST(NcclTestsImport, AnAverageIsReadBesideItsMinBwVerdictAndWideFiguresByTheirDigits) {
  // NCCL_TESTS_MIN_BW prints "475.782 OK" or "... FAILED": the average was not read (the check
  // skipped) and FAILED, nccl-tests' own failure of the run, passed.
  const std::string log =
      whole_real_log("issue256_h200_2node_roce_baremetal_all_reduce_EXTRACT.txt");
  const auto at = log.find("Avg bus bandwidth    : 475.782");
  ASSERT_NE(at, std::string::npos);
  for (const char *said : {" OK", " FAILED"}) {
    std::string text = log;
    text.insert(text.find('\n', at), said);
    std::istringstream in(text);
    const auto r = import_nccl_tests_text(in, "min_bw.txt", std::nullopt, "r", "h");
    ASSERT_TRUE(r.avg_busbw_gbytes_per_s.has_value()) << said;
    EXPECT_DOUBLE_EQ(*r.avg_busbw_gbytes_per_s, 475.782);
    EXPECT_EQ(r.failures.size(), std::string(said) == " FAILED" ? 1u : 0u) << said;
  }
  // nccl-tests 2.17 prints a figure wider than six characters with fewer decimals.
  EXPECT_DOUBLE_EQ(half_last_digit("52.43"), 0.005);
  EXPECT_DOUBLE_EQ(half_last_digit("1234.6"), 0.05);
  EXPECT_DOUBLE_EQ(half_last_digit("12346"), 0.5);
  EXPECT_DOUBLE_EQ(half_last_digit("1e+06"), 5e5);
}

} // namespace
} // namespace railgauge::importers
