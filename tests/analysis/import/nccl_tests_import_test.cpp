#include <fstream>
#include <sstream>

#include <gtest/gtest.h>

#include "analysis/import/nccl_tests_import.h"
#include "harness/error.h"
#include "tests/support/fixture_text.h"

namespace railgauge::importers {
namespace {

// A FORMAT SAMPLE, not a measurement: text laid out as nccl-tests 2.x prints it (header, rank
// lines, column titles, rows, footer), with made-up numbers, written from the format
// description; the parser must read the real layout, and the numbers only need to round-trip.
constexpr const char *kSample = R"(# Collective test starting: all_reduce_perf
# nThread 1 nGpus 1 minBytes 8 maxBytes 1048576 step: 2(factor) warmup iters: 1 iters: 20 agg iters: 1 validation: 1 graph: 0
#
# Using devices
#  Rank  0 Group  0 Pid  41001 on     node01 device  0 [0000:19:00] NVIDIA H100 80GB HBM3
#  Rank  1 Group  0 Pid  41002 on     node01 device  1 [0000:3b:00] NVIDIA H100 80GB HBM3
#
#                                                              out-of-place                       in-place
#       size         count      type   redop    root     time   algbw   busbw #wrong     time   algbw   busbw #wrong
#        (B)    (elements)                               (us)  (GB/s)  (GB/s)            (us)  (GB/s)  (GB/s)
           8             2     float     sum      -1    11.00    0.00    0.00      0    10.50    0.00    0.00      0
     1048576        262144     float     sum      -1    20.00   52.43   52.43      0    19.00   55.19   55.19      3
# Out of bounds values : 3 FAILED
# Avg bus bandwidth    : 26.905
#
)";

TEST(NcclTestsImport, ReadsEveryRowTwiceWithTheirStatus) {
  std::istringstream in(kSample);
  const auto r = import_nccl_tests_text(in, "sample.txt", std::nullopt, "imp", "node01");
  ASSERT_EQ(r.kind, Kind::all_reduce);
  ASSERT_EQ(r.records.size(), 4u);
  EXPECT_EQ(r.ranks.size(), 2u);
  ASSERT_TRUE(r.avg_busbw_gbytes_per_s);
  EXPECT_DOUBLE_EQ(*r.avg_busbw_gbytes_per_s, 26.905);
  const auto &big_out = r.records[2];
  EXPECT_EQ(big_out.key, "collectives.nccl_all_reduce");
  EXPECT_EQ(big_out.params["size_bytes"], 1048576);
  EXPECT_EQ(big_out.params["dtype"], "float32");
  EXPECT_EQ(big_out.params["in_place"], "out_of_place");
  EXPECT_EQ(big_out.params["source"], "nccl-tests");
  EXPECT_DOUBLE_EQ(big_out.metrics["wall_time_s"].get<double>(), 20e-6);
  EXPECT_DOUBLE_EQ(big_out.metrics["busbw_gbytes_per_s"].get<double>(), 52.43);
  EXPECT_EQ(big_out.status, Status::ok);
  EXPECT_FALSE(big_out.metrics.contains("time_s")); // a wall-clock mean, not event samples
  const auto &big_in = r.records[3];
  EXPECT_EQ(big_in.status, Status::failed);
  EXPECT_EQ(big_in.metrics["wrong_elements"], 3);
  EXPECT_NE(big_in.reason->find("3 wrong"), std::string::npos);
  EXPECT_NO_THROW(Record::from_json(big_in.to_json()));
}

TEST(NcclTestsImport, WithoutAHeaderTheCallerNamesTheCollective) {
  std::istringstream rows(
      "  4096  1024  bfloat16  none  -1  5.0 0.82 0.82 N/A  5.0 0.82 0.82 N/A\n");
  EXPECT_THROW(import_nccl_tests_text(rows, "x.txt", std::nullopt, "r", "h"), InputError);
  std::istringstream again(
      "  4096  1024  bfloat16  none  -1  5.0 0.82 0.82 N/A  5.0 0.82 0.82 N/A\n");
  const auto r = import_nccl_tests_text(again, "x.txt", Kind::all_gather, "r", "h");
  ASSERT_EQ(r.records.size(), 2u);
  EXPECT_EQ(r.records[0].params["dtype"], "bf16");
  EXPECT_FALSE(r.records[0].params.contains("op"));
  EXPECT_FALSE(r.records[0].metrics.contains("verified"));
}

// all_gather -b 8 on 16 ranks: every size under 16 elements rounds to none per rank, and
// nccl-tests prints a row of 0 bytes for each; one point of 0 bytes is kept, not 3 alike.
TEST(NcclTestsImport, RepeatedZeroByteRowsAreOnePoint) {
  std::istringstream in("# Collective test starting: all_gather_perf\n"
                        "           0             0     float    none      -1     0.15    0.00    "
                        "0.00      0     0.14    0.00    0.00      0\n"
                        "           0             0     float    none      -1     0.14    0.00    "
                        "0.00      0     0.14    0.00    0.00      0\n"
                        "           0             0     float    none      -1     0.15    0.00    "
                        "0.00      0     0.14    0.00    0.00      0\n"
                        "          64             1     float    none      -1    20.31    0.00    "
                        "0.00      0    19.98    0.00    0.00      0\n");
  const auto r = import_nccl_tests_text(in, "ag.txt", std::nullopt, "r", "h");
  EXPECT_EQ(r.records.size(), 4u); // 0 and 64 bytes, out of place and in place
  EXPECT_EQ(r.repeated_zero_rows, 2);
  EXPECT_EQ(r.records[0].params["size_bytes"], 0);
  EXPECT_EQ(r.records[2].params["size_bytes"], 64);
}

TEST(NcclTestsImport, AMalformedRowNamesItsLine) {
  std::istringstream in("# Collective test starting: sendrecv_perf\n  8  2  float  sum  -1  x\n"
                        "# Avg bus bandwidth    : 1\n");
  try {
    import_nccl_tests_text(in, "log.txt", std::nullopt, "r", "h");
    FAIL();
  } catch (const InputError &e) {
    EXPECT_EQ(e.where(), "log.txt:2");
  }
}

// -I 1 (nccl-tests 2.19): after each half's four columns, i_min i_max i_p99 i_cv% (util.cu,
// writeResultHeader). FORMAT SAMPLE, numbers made up.
constexpr const char *kPerIterationSample =
    R"(# nccl-tests version 2.19.6 nccl-headers=22809 nccl-library=22809
# Collective test starting: all_reduce_perf_mpi
# Per-Iteration Report: CUDA event timing; i_* uses max over process rows
#
# Using devices
#  Rank  0 Group  0 Pid  41001 on     node01 device  0 [0000:19:00] NVIDIA H100 80GB HBM3
#  Rank  1 Group  0 Pid  51002 on     node02 device  0 [0000:19:00] NVIDIA H100 80GB HBM3
#
#                                                   out-of-place (+ per-iteration)                                in-place (+ per-iteration)
#       size         count      type   redop    root     time   algbw   busbw  #wrong    i_min    i_max    i_p99    i_cv%     time   algbw   busbw  #wrong    i_min    i_max    i_p99    i_cv%
#        (B)    (elements)                               (us)  (GB/s)  (GB/s)             (us)     (us)     (us)      (%)     (us)  (GB/s)  (GB/s)             (us)     (us)     (us)      (%)
     1048576        262144     float     sum      -1    20.00   52.43   52.43       0    18.50    24.00    23.00     5.10    19.00   55.19   55.19       0    17.90    22.00    21.50     4.20
# Out of bounds values : 0 OK
# Avg bus bandwidth    : 53.81
#
)";

TEST(NcclTestsImport, PerIterationColumnsAreReadNotMistakenForTheInPlaceHalf) {
  std::istringstream in(kPerIterationSample);
  const auto r = import_nccl_tests_text(in, "i1.txt", std::nullopt, "r", "h");
  ASSERT_EQ(r.kind, Kind::all_reduce) << "a renamed build, all_reduce_perf_mpi";
  ASSERT_EQ(r.records.size(), 2u);
  const auto &out = r.records[0], &in_place = r.records[1];
  EXPECT_EQ(out.status, Status::ok);
  EXPECT_EQ(in_place.status, Status::ok);
  EXPECT_DOUBLE_EQ(out.metrics["iteration_p99_s"].get<double>(), 23e-6);
  EXPECT_DOUBLE_EQ(out.metrics["iteration_cv_percent"].get<double>(), 5.1);
  EXPECT_DOUBLE_EQ(in_place.metrics["wall_time_s"].get<double>(), 19e-6);
  EXPECT_DOUBLE_EQ(in_place.metrics["busbw_gbytes_per_s"].get<double>(), 55.19);
  EXPECT_DOUBLE_EQ(in_place.metrics["iteration_min_s"].get<double>(), 17.9e-6);
  EXPECT_EQ(in_place.metrics["wrong_elements"], 0);
  // The rank lines give the layout: 2 ranks on 2 nodes.
  EXPECT_EQ(out.params["world_size"], 2);
  EXPECT_EQ(out.params["group_hosts"], 2);
  EXPECT_EQ(r.about["version_line"], "nccl-tests version 2.19.6 nccl-headers=22809 "
                                     "nccl-library=22809");
}

TEST(NcclTestsImport, ACapturedLogWithLauncherTagsAndNcclDebugLinesImportsWhole) {
  // mpirun --tag-output prefixes every line; NCCL_DEBUG=INFO lines sit between the rows.
  std::ostringstream log;
  std::istringstream sample(kSample);
  int n = 0;
  for (std::string line; std::getline(sample, line); ++n) {
    log << "[1,0]<stdout>:" << line << "\n";
    if (n == 4)
      log << "[1,0]<stdout>:node01:41001:41001 [0] NCCL INFO Channel 00/32 : 0 1\n"
          << "node01:41001:41010 [0] NCCL INFO Connected all rings\n";
  }
  std::istringstream in(log.str());
  const auto r = import_nccl_tests_text(in, "tagged.txt", std::nullopt, "r", "h");
  EXPECT_EQ(r.kind, Kind::all_reduce);
  EXPECT_EQ(r.records.size(), 4u);
  EXPECT_EQ(r.ranks.size(), 2u);
  EXPECT_EQ(r.other_lines, 2);
  // srun --label's "0: " prefix too.
  std::ostringstream labelled;
  std::istringstream again(kSample);
  for (std::string line; std::getline(again, line);)
    labelled << "0: " << line << "\n";
  std::istringstream in2(labelled.str());
  EXPECT_EQ(import_nccl_tests_text(in2, "srun.txt", std::nullopt, "r", "h").records.size(), 4u);
}

TEST(NcclTestsImport, EachRunOfALogHasItsOwnRankLayout) {
  // Two runs in one log: a 2-rank all_reduce, then the same job's all_gather. Each record's
  // world_size is its own run's 2, not the 4 rank lines of the whole file.
  std::string two = kSample;
  std::string second = kSample;
  second.replace(second.find("all_reduce_perf"), 15, "all_gather_perf");
  two += second;
  std::istringstream in(two);
  const auto r = import_nccl_tests_text(in, "two.txt", std::nullopt, "r", "h");
  ASSERT_EQ(r.records.size(), 8u);
  EXPECT_EQ(r.records[0].key, "collectives.nccl_all_reduce");
  EXPECT_EQ(r.records[7].key, "collectives.nccl_all_gather");
  for (const auto &rec : r.records)
    EXPECT_EQ(rec.params["world_size"], 2) << rec.key;
}

TEST(NcclTestsImport, ALastRunCutAfterItsHeaderIsAFailureBesideTheRowsBefore) {
  std::string log = kSample;
  log += "# Collective test starting: all_gather_perf\n#\n# Using devices\n";
  std::istringstream in(log);
  const auto r = import_nccl_tests_text(in, "cut.txt", std::nullopt, "r", "h");
  EXPECT_EQ(r.records.size(), 4u);
  ASSERT_EQ(r.failures.size(), 1u);
  EXPECT_NE(r.failures[0].find("of all_gather"), std::string::npos) << r.failures[0];
}

// The real bare-metal H200 log of NVIDIA/nccl-tests#256, whole, then cut after its 3 GiB row (of
// 9 GiB planned): whole it is a pass with its average; cut, the sizes it never reached are a
// failure of the import, never a pass on the rows before them.
TEST(NcclTestsImport, ARealLogCutBeforeItsLastSizeIsAFailure) {
  std::ifstream file(std::string(RAILGAUGE_TEST_FIXTURES) +
                     "/verdicts/real/issue256_h200_2node_roce_baremetal_all_reduce_EXTRACT.txt");
  std::stringstream whole_text;
  whole_text << file.rdbuf();
  const std::string log = whole_text.str();
  std::istringstream whole(log);
  const auto w = import_nccl_tests_text(whole, "whole.txt", Kind::all_reduce, "r", "h");
  EXPECT_TRUE(w.failures.empty()) << w.failures.front();
  ASSERT_TRUE(w.avg_busbw_gbytes_per_s); // "# Avg bus bandwidth    : 475.782 ", with its space
  EXPECT_GT(*w.avg_busbw_gbytes_per_s, 100);
  const auto row = log.find("\n  3221225472 ");
  ASSERT_NE(row, std::string::npos);
  std::istringstream cut(log.substr(0, log.find('\n', row + 1) + 1));
  const auto c = import_nccl_tests_text(cut, "cut.txt", Kind::all_reduce, "r", "h");
  EXPECT_LT(c.records.size(), w.records.size());
  EXPECT_FALSE(c.records.empty());
  ASSERT_EQ(c.failures.size(), 1u);
  EXPECT_NE(c.failures[0].find("the log ends before nccl-tests' last size"), std::string::npos)
      << c.failures[0];
}

TEST(NcclTestsImport, ARealLogCutMidRowKeepsItsRowsAndFailsTheRest) {
  // A job killed while nccl-tests wrote a row: the file ends in half a row. It was refused
  // whole (exit 4, "bad input"), so the node's failed run left the verdict.
  std::ifstream file(std::string(RAILGAUGE_TEST_FIXTURES) +
                     "/verdicts/real/issue256_h200_2node_roce_baremetal_all_reduce_EXTRACT.txt");
  std::stringstream text;
  text << file.rdbuf();
  const std::string log = text.str();
  const auto row = log.find("\n  3221225472 ");
  ASSERT_NE(row, std::string::npos);
  const std::string cut_text = log.substr(0, row + 40);
  std::istringstream cut(cut_text);
  const auto c = import_nccl_tests_text(cut, "cut.txt", Kind::all_reduce, "r", "h");
  EXPECT_FALSE(c.records.empty());
  ASSERT_EQ(c.failures.size(), 1u);
  EXPECT_NE(c.failures[0].find("the last result row is cut short"), std::string::npos)
      << c.failures[0];
  // Half a row with more of nccl-tests after it is not a cut log: refused, naming its line.
  for (const std::string more : {"\n# Avg bus bandwidth    : 1\n", "\n  1024  256  float\n"}) {
    std::istringstream inside(cut_text + more);
    EXPECT_THROW(import_nccl_tests_text(inside, "inside.txt", Kind::all_reduce, "r", "h"),
                 InputError)
        << more;
  }
  // A time limit: Slurm's message after the cut row, on a line of its own or glued to the half
  // row where no newline ended it, and srun's after it. Both were refused whole.
  const std::string slurm = "slurmstepd: error: *** STEP 7.0 ON n1 CANCELLED AT "
                            "2026-11-30T10:00:00 DUE TO TIME LIMIT ***\nsrun: Job step aborted: "
                            "Waiting up to 32 seconds for job step to finish.\n";
  for (const std::string sep : {"\n", ""}) {
    std::istringstream limited(cut_text + sep + slurm);
    const auto l = import_nccl_tests_text(limited, "limited.txt", Kind::all_reduce, "r", "h");
    EXPECT_EQ(l.records.size(), c.records.size()) << "separator '" << sep << "'";
    ASSERT_EQ(l.failures.size(), 1u);
    EXPECT_NE(l.failures[0].find("the last result row is cut short"), std::string::npos)
        << l.failures[0];
    if (sep.empty()) { // the message names the cause
      EXPECT_NE(l.failures[0].find("DUE TO TIME LIMIT"), std::string::npos) << l.failures[0];
    }
  }
}

// The real xxrjun log whose alltoall aborted before its first size and whose sendrecv then ran
// to its end: the failure is the alltoall's, after none of its rows, not the sendrecv's.
TEST(NcclTestsImport, AFailureIsBlamedOnTheRunItStoppedNotTheLogsLast) {
  std::ifstream file(std::string(RAILGAUGE_TEST_FIXTURES) +
                     "/verdicts/real/xxrjun_h100_2node_4gpu_alltoall_abort_sendrecv_degrading.log");
  const auto r = import_nccl_tests_text(file, "abort.log", std::nullopt, "r", "h");
  EXPECT_EQ(r.kind, Kind::sendrecv);
  ASSERT_FALSE(r.failures.empty());
  EXPECT_EQ(r.failed_kind, Kind::alltoall);
  EXPECT_EQ(r.failed_after_rows, 0u);
  const auto failure = nccl_tests_failure_record(r, "r", "h");
  EXPECT_EQ(failure.key, "collectives.nccl_alltoall");
  EXPECT_NE(failure.reason->find("after 0 result row(s) of alltoall"), std::string::npos)
      << *failure.reason;
}

// nccl-tests says only "unhandled cuda error"; with NCCL_DEBUG NCCL says why before it, after
// setup warnings of no consequence. The published log of NVIDIA/nccl-tests#287: the failure
// names the last warning before it (the cause), never the first (a setup warning).
TEST(NcclTestsImport, AFailureNamesNcclsLastWarningBeforeIt) {
  std::istringstream in(
      testing::fixture_text("nccl-tests/issue287_rtx5090x2_all_reduce_nccl_debug_info.txt"));
  const auto r = import_nccl_tests_text(in, "287.txt", std::nullopt, "r", "h");
  ASSERT_FALSE(r.failures.empty());
  EXPECT_NE(r.failures[0].find("'unhandled cuda error (run with NCCL_DEBUG=INFO for details) / "
                               "'; NCCL's last warning before it (of 5 NCCL WARN lines): "
                               "'GENOA-06:4766:4766 [1] enqueue.cc:1500 NCCL WARN Cuda failure 1 "
                               "'invalid argument''"),
            std::string::npos)
      << r.failures[0];
  for (std::size_t i = 1; i < r.failures.size(); ++i) // nccl-tests' trace lines
    EXPECT_EQ(r.failures[i].find("NCCL's last warning"), std::string::npos) << r.failures[i];
}

// The real xxrjun abort log (run without NCCL_DEBUG), edited: NCCL 2.26's net_ib warning (its form
// as quoted in NVIDIA/nccl#1698) after the alltoall's failure line, as mpirun may order another
// rank's output, and another between the sendrecv's last row and the log's end. The failure line
// names no warning that came after it, and nothing is said twice.
TEST(NcclTestsImport, AWarningAfterAFailureIsNotItsCause) {
  auto text = testing::fixture_text(
      "verdicts/real/xxrjun_h100_2node_4gpu_alltoall_abort_sendrecv_degrading.log");
  const std::string warn = "cnode2-003:368541:368600 [0] transport/net_ib.cc:2244 NCCL WARN "
                           "NET/IB: Got completion from peer 10.0.0.1<53908> with status=12 "
                           "opcode=129 len=1048576 vendor err 129 (Recv) hca mlx5_0\n";
  text.insert(text.find(" .. cnode2-001 pid 441581: Test failure common.cu:519"), warn);
  std::istringstream in(text);
  const auto r = import_nccl_tests_text(in, "abort.log", std::nullopt, "r", "h");
  ASSERT_FALSE(r.failures.empty());
  for (const auto &f : r.failures)
    EXPECT_EQ(f.find("NCCL's last warning"), std::string::npos) << f;
}

TEST(NcclTestsImport, AHeaderWithoutRowsIsARunThatEndedNotAnError) {
  const std::string header = std::string(kSample).substr(0, std::string(kSample).find("#\n#  "));
  std::istringstream in(header);
  const auto r = import_nccl_tests_text(in, "cut.txt", std::nullopt, "r", "h");
  EXPECT_TRUE(r.records.empty());
  ASSERT_EQ(r.failures.size(), 1u);
  EXPECT_NE(r.failures[0].find("ended before its first size"), std::string::npos);
}

// Params as railgauge's own records have them (root an integer, float named float32), so that
// `railgauge compare` pairs an imported row with railgauge's point.
TEST(NcclTestsImport, ParamsMatchRailgaugeRecords) {
  NcclTestsHalf half;
  half.size_bytes = 1024;
  half.count = 256;
  half.type = "float";
  half.redop = "none";
  half.root = "0";
  const Record r = nccl_tests_record(half, Kind::broadcast, "r", "h");
  EXPECT_EQ(r.params.at("root"), 0);
  EXPECT_TRUE(r.params.at("root").is_number_integer());
  EXPECT_EQ(r.params.at("dtype"), "float32");
  EXPECT_FALSE(r.params.contains("op"));
  half.root = "-1";
  EXPECT_FALSE(nccl_tests_record(half, Kind::broadcast, "r", "h").params.contains("root"));
}

// nccl-tests stops at its first failure and prints where; the rows before it are kept and the
// failure is reported, never read as a malformed row.
TEST(NcclTestsImport, AFailureLineEndsTheRunAndKeepsTheRowsBeforeIt) {
  std::string text = kSample;
  text.insert(text.find("# Out of bounds"),
              "node01: Test NCCL failure common.cu:1143 'unhandled system error'\n"
              " .. node01 pid 41001: Test failure common.cu:1454\n");
  std::istringstream in(text);
  const auto r = import_nccl_tests_text(in, "log.txt", std::nullopt, "r", "h");
  EXPECT_EQ(r.records.size(), 4u);
  ASSERT_EQ(r.failures.size(), 2u);
  EXPECT_EQ(r.failures[0], "log.txt:13: node01: Test NCCL failure common.cu:1143 'unhandled "
                           "system error'");
  const Record failure = nccl_tests_failure_record(r, "r", "h");
  EXPECT_EQ(failure.status, Status::error);
  EXPECT_EQ(failure.key, "collectives.nccl_all_reduce");
  ASSERT_TRUE(failure.reason);
  EXPECT_NE(failure.reason->find("after 2 result row(s)"), std::string::npos) << *failure.reason;
}

// Logs of nccl-tests before NCCL 2.13 (tests/fixtures/nccl-tests/README.md, "old-layouts"): 12
// columns (no root) or 11 (no redop either) and an `error` column, the half's largest deviation,
// were refused as "a result row needs 13 columns". Each imports; a half whose error is above
// nccl-tests' own bound fails, and nccl-tests' count of them must agree.
TEST(NcclTestsImport, OldLayoutsBeforeTheRootColumnImport) {
  const auto text = [](const std::string &name) {
    return testing::fixture_text("nccl-tests/old-layouts/" + name);
  };
  const auto abci = import_nccl_tests(text("abci_a100_2node_ib_allreduce.txt"), "abci.txt",
                                      Kind::all_reduce, "imp", "node01");
  ASSERT_EQ(abci.records.size(), 48u); // 4 B to 32 MiB, both halves
  EXPECT_TRUE(abci.failures.empty());
  for (const auto &r : abci.records) {
    EXPECT_EQ(r.status, Status::ok) << r.reason.value_or("");
    EXPECT_EQ(r.params.at("op"), "sum");
    EXPECT_FALSE(r.params.contains("root"));
    EXPECT_EQ(r.metrics.at("verified"), true); // errors of 4e-07 against 1.5e-04 (16 ranks)
  }
  EXPECT_EQ(abci.records.back().params.at("size_bytes"), 33554432);
  // 4 bytes printed busbw 0.00 (two decimals): taken from the row's time, it rounds to that.
  const double small_busbw = abci.records[0].metrics.at("busbw_gbytes_per_s").get<double>();
  EXPECT_GT(small_busbw, 0.0);
  EXPECT_LE(small_busbw, 0.005);

  const auto gather = import_nccl_tests(text("wohlbier_dgx2_v100x12_allgather_out_of_bounds.txt"),
                                        "gather.txt", Kind::all_gather, "imp", "seville");
  EXPECT_TRUE(gather.failures.empty()) << gather.failures.front(); // nccl-tests counted 4 too
  std::vector<std::int64_t> failed;
  for (const auto &r : gather.records) {
    EXPECT_FALSE(r.params.contains("op"));
    if (r.status == Status::failed)
      failed.push_back(r.params.at("size_bytes"));
  }
  EXPECT_EQ(failed, (std::vector<std::int64_t>{4294967280, 4294967280, 8589934560, 8589934560}));

  const auto off = import_nccl_tests(text("likejazz_t4_3node_tcp_allreduce_nocheck.txt"), "t4.txt",
                                     Kind::all_reduce, "imp", "gpu01");
  ASSERT_EQ(off.records.size(), 22u);
  // -c 0 ("validation: 0", #wrong N/A): never checked, which check's data-check then says.
  for (const auto &r : off.records)
    EXPECT_EQ(r.metrics.value("verified", true), false) << r.metrics.dump();

  // An infinite error (a flipped exponent) is the worst error there is, not unreadable input;
  // nccl-tests counts it once per process that saw it (16 here), which agrees with one half.
  std::string inf = text("abci_a100_2node_ib_allreduce.txt");
  const auto row = inf.find("33554432       8388608");
  ASSERT_NE(row, std::string::npos);
  const auto last_error = inf.rfind("5e-07", inf.find('\n', row));
  ASSERT_NE(last_error, std::string::npos);
  inf.replace(last_error, 5, "  inf");
  inf.replace(inf.find("Out of bounds values : 0 OK"), 27, "Out of bounds values : 16 FAILED");
  const auto worst = import_nccl_tests(inf, "inf.txt", Kind::all_reduce, "imp", "node01");
  EXPECT_TRUE(worst.failures.empty()) << worst.failures.front();
  ASSERT_EQ(worst.records.size(), 48u);
  EXPECT_EQ(worst.records.back().status, Status::failed);
  EXPECT_NE(worst.records.back().reason->find("largest error inf"), std::string::npos)
      << *worst.records.back().reason;

  // nccl-tests' count disagreeing with the rows, or rows without rank lines to bound them by,
  // is a failure of the run, never a pass.
  std::string edited = text("llv22_gtx1080x2_allgather.txt");
  const auto ok = edited.find("Out of bounds values : 0 OK");
  ASSERT_NE(ok, std::string::npos);
  edited.replace(ok, 27, "Out of bounds values : 2 FAILED");
  const auto disagree = import_nccl_tests(edited, "osx.txt", Kind::all_gather, "imp", "Orlando");
  ASSERT_EQ(disagree.failures.size(), 1u);
  EXPECT_NE(disagree.failures[0].find("counted 2 out-of-bounds value(s) in this run, its rows' "
                                      "printed errors give 0"),
            std::string::npos)
      << disagree.failures[0];
}

std::string real_log(const std::string &name) {
  std::ifstream file(std::string(RAILGAUGE_TEST_FIXTURES) + "/verdicts/real/" + name);
  std::stringstream text;
  text << file.rdbuf();
  return text.str();
}

TEST(NcclTestsImport, NccltestsOwnFailedCountStandsWhereNoRowHoldsIt) {
  // A #wrong-layout log that kept "Out of bounds values : 4 FAILED" and lost the rows' failure
  // lines (and the wrong rows) passed: each row's count was taken to say it all.
  std::string log = real_log("issue256_h200_2node_roce_baremetal_all_reduce_EXTRACT.txt");
  const auto at = log.find("Out of bounds values : 0 OK");
  ASSERT_NE(at, std::string::npos);
  log.replace(at, 27, "Out of bounds values : 4 FAILED");
  std::istringstream in(log);
  const auto r = import_nccl_tests_text(in, "oob.txt", Kind::all_reduce, "r", "h");
  ASSERT_EQ(r.failures.size(), 1u);
  EXPECT_NE(r.failures[0].find("counted 4 out-of-bounds value(s) in this run, and no row"),
            std::string::npos)
      << r.failures[0];
  // Where a row holds its wrong elements, that row fails, and the count adds nothing.
  std::istringstream sample(kSample);
  EXPECT_TRUE(import_nccl_tests_text(sample, "s.txt", std::nullopt, "r", "h").failures.empty());
}

} // namespace
} // namespace railgauge::importers
