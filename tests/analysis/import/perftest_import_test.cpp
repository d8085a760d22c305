// The perftest importer on real output: tests/fixtures/rdma/perftest/ holds
// ib_{write,read,send}_{bw,lat} output (perftest 4.5+0.17, Debian 12) taken on Soft-RoCE (rxe0)
// in the VM that scripts/softroce_vm.sh boots; see the README there.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <vector>

#include "analysis/import/perftest_import.h"
#include "harness/error.h"
#include "tests/support/fixture_text.h"

namespace railgauge::importers {
namespace {

std::string perftest_fixture(const std::string &name) {
  return testing::fixture_text("rdma/perftest/" + name);
}

TEST(PerftestImport, WriteBwClient) {
  const auto records = import_perftest(perftest_fixture("ib_write_bw_rxe_client.txt"), "bw.txt");
  ASSERT_EQ(records.size(), 1u);
  const Record &r = records[0];
  EXPECT_EQ(r.key, "rdma.write_bw");
  EXPECT_EQ(r.params.at("tool"), "perftest ib_write_bw");
  EXPECT_EQ(r.params.at("size_bytes"), 65536);
  EXPECT_EQ(r.params.at("iterations"), 2000);
  EXPECT_EQ(r.params.at("device"), "rxe0");
  EXPECT_EQ(r.params.at("qps"), 1);
  EXPECT_EQ(r.params.at("mtu_bytes"), 1024);
  EXPECT_EQ(r.params.at("gid_index"), 0);
  EXPECT_EQ(r.params.at("link_layer"), "Ethernet");
  EXPECT_GT(r.metrics.at("bandwidth_gbits_per_s").get<double>(), 0.0);
  EXPECT_DOUBLE_EQ(r.metrics.at("bandwidth_gbytes_per_s").get<double>(),
                   r.metrics.at("bandwidth_gbits_per_s").get<double>() / 8);
  EXPECT_GE(r.metrics.at("bandwidth_peak_gbits_per_s").get<double>(),
            r.metrics.at("bandwidth_gbits_per_s").get<double>());
  EXPECT_GT(r.metrics.at("message_rate_per_s").get<double>(), 0.0);
  EXPECT_EQ(r.status, Status::ok);
}

TEST(PerftestImport, WriteBwServerSideToo) {
  const auto records = import_perftest(perftest_fixture("ib_write_bw_rxe_server.txt"), "srv.txt");
  ASSERT_EQ(records.size(), 1u);
  EXPECT_EQ(records[0].key, "rdma.write_bw");
}

TEST(PerftestImport, WriteLatHasEveryStatisticInSeconds) {
  const auto records = import_perftest(perftest_fixture("ib_write_lat_rxe_client.txt"), "lat.txt");
  ASSERT_EQ(records.size(), 1u);
  const auto &l = records[0].metrics.at("latency");
  EXPECT_EQ(records[0].key, "rdma.write_lat");
  EXPECT_EQ(records[0].params.at("size_bytes"), 8);
  for (const char *k : {"min_s", "max_s", "p50_s", "mean_s", "stdev_s", "p99_s", "p99_9_s"})
    ASSERT_TRUE(l.contains(k)) << k;
  EXPECT_LE(l.at("min_s").get<double>(), l.at("p50_s").get<double>());
  EXPECT_LE(l.at("p99_s").get<double>(), l.at("p99_9_s").get<double>());
  EXPECT_LE(l.at("p99_9_s").get<double>(), l.at("max_s").get<double>());
  EXPECT_LT(l.at("min_s").get<double>(), 1.0); // microseconds were scaled to seconds
  EXPECT_EQ(records[0].metrics.at("latency_definition"), "round trip / 2 (perftest)");
}

// Every verb's bandwidth and latency test, each under its own key with its own figures.
TEST(PerftestImport, ReadAndSendBandwidthAndLatency) {
  for (const char *verb : {"read", "send"}) {
    const std::string v = verb;
    const auto bw = import_perftest(perftest_fixture("ib_" + v + "_bw_rxe_client.txt"), "bw.txt");
    ASSERT_EQ(bw.size(), 1u) << v;
    EXPECT_EQ(bw[0].key, "rdma." + v + "_bw");
    EXPECT_EQ(bw[0].params.at("tool"), "perftest ib_" + v + "_bw");
    EXPECT_EQ(bw[0].params.at("size_bytes"), 65536);
    EXPECT_GT(bw[0].metrics.at("bandwidth_gbits_per_s").get<double>(), 0.0) << v;
    EXPECT_GE(bw[0].metrics.at("bandwidth_peak_gbits_per_s").get<double>(),
              bw[0].metrics.at("bandwidth_gbits_per_s").get<double>())
        << v;
    const auto lat =
        import_perftest(perftest_fixture("ib_" + v + "_lat_rxe_client.txt"), "lat.txt");
    ASSERT_EQ(lat.size(), 1u) << v;
    EXPECT_EQ(lat[0].key, "rdma." + v + "_lat");
    const auto &l = lat[0].metrics.at("latency");
    EXPECT_LE(l.at("min_s").get<double>(), l.at("p50_s").get<double>()) << v;
    EXPECT_LE(l.at("p99_s").get<double>(), l.at("p99_9_s").get<double>()) << v;
    EXPECT_LE(l.at("p99_9_s").get<double>(), l.at("max_s").get<double>()) << v;
    // perftest's convention, which railgauge's own records follow.
    EXPECT_EQ(lat[0].metrics.at("latency_definition"),
              v == "read" ? "round trip (perftest)" : "round trip / 2 (perftest)");
  }
  // ib_read_lat printed 20.89 us minimum and 36.18 us typical in that run.
  const auto read = import_perftest(perftest_fixture("ib_read_lat_rxe_client.txt"), "lat.txt");
  EXPECT_DOUBLE_EQ(read[0].metrics.at("latency").at("min_s").get<double>(), 20.89e-6);
  EXPECT_DOUBLE_EQ(read[0].metrics.at("latency").at("p50_s").get<double>(), 36.18e-6);
}

// ib_send_bw's server prints "BW peak 0.00" beside a real average: no peak, not a zero peak.
TEST(PerftestImport, SendBwServerPeakOfZeroIsLeftOut) {
  const auto r = import_perftest(perftest_fixture("ib_send_bw_rxe_server.txt"), "srv.txt").at(0);
  EXPECT_EQ(r.key, "rdma.send_bw");
  EXPECT_GT(r.metrics.at("bandwidth_gbits_per_s").get<double>(), 0.0);
  EXPECT_FALSE(r.metrics.contains("bandwidth_peak_gbits_per_s")) << r.metrics.dump();
}

// ib_read_lat's server has no table: the error says to import the client's output.
TEST(PerftestImport, ReadLatServerSaysTheClientHasTheResults) {
  try {
    import_perftest(perftest_fixture("ib_read_lat_rxe_server.txt"), "srv.txt");
    FAIL();
  } catch (const InputError &e) {
    EXPECT_NE(std::string(e.what()).find("prints its results on the client only"),
              std::string::npos)
        << e.what();
    EXPECT_EQ(e.where(), "srv.txt");
  }
}

// The server side of ib_write_lat once printed inf and -nan for every statistic (a later run
// of the same command printed numbers): a failed record naming the columns, never a figure.
TEST(PerftestImport, InfAndNanAreNotComputedNeverFigures) {
  const auto r =
      import_perftest(perftest_fixture("ib_write_lat_rxe_server_inf.txt"), "srv.txt").at(0);
  EXPECT_EQ(r.key, "rdma.write_lat");
  EXPECT_EQ(r.status, Status::failed);
  EXPECT_NE(r.reason.value_or("").find("inf or nan for every figure"), std::string::npos);
  EXPECT_EQ(r.params.at("perftest_not_computed").size(), 7u) << r.params.dump();
  EXPECT_FALSE(r.metrics.contains("latency"));
  // One column of inf among numbers: that column only is left out.
  std::string text = perftest_fixture("ib_write_lat_rxe_client.txt");
  const auto row = text.find(" 8       2000");
  ASSERT_NE(row, std::string::npos);
  const auto first = text.find_first_not_of(' ', text.find("2000", row) + 4);
  text.replace(first, text.find(' ', first) - first, "inf");
  const auto partial = import_perftest(text, "partial.txt").at(0);
  EXPECT_EQ(partial.status, Status::ok);
  EXPECT_FALSE(partial.metrics.at("latency").contains("min_s"));
  EXPECT_TRUE(partial.metrics.at("latency").contains("p50_s"));
  EXPECT_EQ(partial.params.at("perftest_not_computed"), nlohmann::json{"t_min[usec]"});
}

TEST(PerftestImport, MibPerSecondIsConvertedToGbits) {
  // Without --report_gbits perftest prints MB/sec, meaning MiB/s.
  std::string text = perftest_fixture("ib_write_bw_rxe_client.txt");
  const auto at = text.find("BW peak[Gb/sec]    BW average[Gb/sec]");
  ASSERT_NE(at, std::string::npos);
  text.replace(at, 38, "BW peak[MB/sec]    BW average[MB/sec]");
  const auto row = text.find(" 65536 ");
  text.replace(
      row, text.find('\n', row) - row,
      " 65536      2000             100.00               50.00   		   0.000800");
  const auto r = import_perftest(text, "mib.txt").at(0);
  EXPECT_NEAR(r.metrics.at("bandwidth_gbits_per_s").get<double>(), 50 * 1048576.0 * 8 / 1e9, 1e-9);
}

TEST(PerftestImport, FailedRunAndForeignTextAreInputErrorsWithLocation) {
  try {
    import_perftest(" Couldn't connect to 127.0.0.1:18515\nUnable to open file descriptor for "
                    "socket connection\n",
                    "fail.txt");
    FAIL();
  } catch (const InputError &e) {
    EXPECT_NE(std::string(e.what()).find("Couldn't connect"), std::string::npos) << e.what();
    EXPECT_EQ(e.where(), "fail.txt");
  }
  std::string cut = perftest_fixture("ib_write_lat_rxe_client.txt");
  cut = cut.substr(0, cut.find(" #bytes"));
  EXPECT_THROW(import_perftest(cut, "cut.txt"), InputError);
  std::string broken = perftest_fixture("ib_write_bw_rxe_client.txt");
  broken.replace(broken.find(" 65536 "), 7, " 65536 x ");
  try {
    import_perftest(broken, "broken.txt");
    FAIL();
  } catch (const InputError &e) {
    EXPECT_NE(e.where().find("broken.txt:"), std::string::npos) << e.where();
  }
}

// A client that never met its server (tests/fixtures/verdicts/real, the MOC cluster's 16-QP
// GPU-memory ib_write_bw): not bad input but a link that did not come up, one failed record of
// the test its file name names, which check fails and drains.
// The real MOC ib_write_bw log (gpu0 to gpu0, 2 QPs) ends its table with perftest's dashed
// line. Cut after its 1 MiB row, the sizes it never reached are an error record beside the rows;
// with a completion error after the rows, the error is that line.
TEST(PerftestImport, ARealLogCutOrBrokenAfterItsRowsEndsInAnErrorRecord) {
  const std::string log = testing::fixture_text(
      "verdicts/real/moc_bm_h100_roce_cx7_ib_write_bw_gpumem_2qp_gpu0-gpu0_client.log");
  const auto whole = import_perftest(log, "whole.log");
  for (const auto &r : whole)
    EXPECT_EQ(r.status, Status::ok) << r.reason.value_or("");
  const auto row = log.find("\n 1048576 ");
  ASSERT_NE(row, std::string::npos);
  const std::string cut_text = log.substr(0, log.find('\n', row + 1) + 1);
  const auto cut = import_perftest(cut_text, "cut.log");
  ASSERT_LT(cut.size(), whole.size());
  EXPECT_EQ(cut.back().status, Status::error);
  EXPECT_NE(cut.back().reason->find("without the dashed line perftest closes its table"),
            std::string::npos)
      << *cut.back().reason;
  const auto broke = import_perftest(
      cut_text + "Completion with error at client\nFailed status 12: wr_id 0 syndrom 0x81\n",
      "broke.log");
  EXPECT_EQ(broke.back().status, Status::error);
  EXPECT_NE(broke.back().reason->find("broke.log:"), std::string::npos) << *broke.back().reason;
  EXPECT_NE(broke.back().reason->find("Completion with error at client"), std::string::npos)
      << *broke.back().reason;
  // Killed while it wrote a row: the file ends in half of one. Refused whole once.
  const std::string half_row = cut_text + " 2097152    20000";
  const auto killed = import_perftest(half_row, "killed.log");
  EXPECT_EQ(killed.size(), cut.size());
  EXPECT_EQ(killed.back().status, Status::error);
  EXPECT_NE(killed.back().reason->find("the last row is cut short"), std::string::npos)
      << *killed.back().reason;
  EXPECT_THROW(import_perftest(half_row + "\n 4194304 20000 1 1 1\n", "inside.log"), InputError);
  // A time limit: Slurm's message glued to the half row, srun's on the next line. Refused once.
  const auto limited = import_perftest(
      half_row + "slurmstepd: error: *** STEP 7.0 ON n1 CANCELLED AT 2026-11-30T10:00:00 DUE TO "
                 "TIME LIMIT ***\nsrun: error: n1: task 0: Terminated\n",
      "limited.log");
  EXPECT_EQ(limited.size(), cut.size());
  EXPECT_EQ(limited.back().status, Status::error);
  EXPECT_NE(limited.back().reason->find("DUE TO TIME LIMIT"), std::string::npos)
      << *limited.back().reason;
  // The glued message is the cut row's own words: never quoted again with the row's numbers.
  EXPECT_EQ(limited.back().reason->find("the launcher said"), std::string::npos)
      << *limited.back().reason;
  // Killed in its first row: a failed test, not a file refused as bad input.
  const auto first_row = log.find('\n', log.find("#bytes")) + 1;
  const auto in_first = import_perftest(log.substr(0, first_row) + " 2", "first.log");
  ASSERT_EQ(in_first.size(), 1u);
  EXPECT_EQ(in_first[0].status, Status::error);
  EXPECT_NE(in_first[0].reason->find("after 0 row(s)"), std::string::npos) << *in_first[0].reason;
}

TEST(PerftestImport, ANeverConnectedClientIsAFailedPointOfItsLink) {
  const std::string name = "moc_bm_h100_roce_cx7_ib_write_bw_gpumem_16qp_client_cm_error.log";
  const auto records = import_perftest(testing::fixture_text("verdicts/real/" + name), name);
  ASSERT_EQ(records.size(), 1u);
  const auto &r = records[0];
  EXPECT_EQ(r.key, "rdma.write_bw");
  EXPECT_EQ(r.status, Status::failed);
  EXPECT_EQ(r.params.value("connected", true), false);
  EXPECT_TRUE(r.metrics.empty()); // no figure: the test never ran
  const auto reason = r.reason.value_or("");
  EXPECT_NE(reason.find("perftest never connected to its peer: " + name +
                        ":1: Unexpected CM event bl blka 8; then " + name +
                        ":2: Unable to perform rdma_client function"),
            std::string::npos)
      << reason;
  EXPECT_NE(reason.find("the test is named by the file name"), std::string::npos) << reason;
  // Printed after its title, the title names the test whatever the file is called.
  const auto titled =
      import_perftest("                    RDMA_Read Latency Test\n Unable to init the socket "
                      "connection\n",
                      "client.txt");
  ASSERT_EQ(titled.size(), 1u);
  EXPECT_EQ(titled[0].key, "rdma.read_lat");
  EXPECT_NE(titled[0].reason.value_or("").find("named by its title"), std::string::npos);
}

TEST(PerftestImport, ANeverConnectedClientOfNoNamedTestAsksForItsName) {
  try {
    import_perftest(" Couldn't connect to 10.0.0.2:18515\n", "client.log");
    FAIL();
  } catch (const InputError &e) {
    EXPECT_NE(std::string(e.what()).find("never connected to its peer (client.log:1: Couldn't "
                                         "connect to 10.0.0.2:18515)"),
              std::string::npos)
        << e.what();
    EXPECT_NE(e.fix().find("ib_write_bw_client.log"), std::string::npos) << e.fix();
  }
}

// ib_write_bw -b (bidirectional) was refused for its title. perftest prints the sum of both
// directions there: it is bidirectional_gbits_per_s, never one direction's bandwidth, so no
// one-way floor reads it (tests/fixtures/rdma/perftest/README.md, published output).
TEST(PerftestImport, ABidirectionalRunIsTheSumOfBothDirections) {
  const auto records = import_perftest(
      testing::fixture_text("rdma/perftest/ib_write_bw_bidir_ionic_4qp_client_published.txt"),
      "bidir.txt");
  ASSERT_EQ(records.size(), 23u); // 2 B to 8 MiB
  for (const auto &r : records) {
    EXPECT_EQ(r.key, "rdma.write_bw");
    EXPECT_EQ(r.status, Status::ok);
    EXPECT_EQ(r.params.at("direction"), "bidir");
    EXPECT_FALSE(r.metrics.contains("bandwidth_gbits_per_s")) << r.metrics.dump();
    EXPECT_FALSE(r.metrics.contains("message_rate_per_s")) << r.metrics.dump();
  }
  const auto &largest = records.back();
  EXPECT_EQ(largest.params.at("size_bytes"), 8388608);
  EXPECT_DOUBLE_EQ(largest.metrics.at("bidirectional_gbits_per_s"), 779.21);
  // The fields a copy joined with spaces instead of perftest's tab are still two each.
  EXPECT_EQ(largest.params.at("qps"), 4);
  EXPECT_EQ(largest.params.at("connection"), "RC");
  EXPECT_EQ(largest.params.at("device"), "ionic_1");
}

// Published logs whose copies lost perftest's tabs (README.md): a copy squeezed to single
// spaces once read `Device` into Dual-port's value and qps as "1 Transport type : IB" text, and
// perftest's own tab in " rdma_cm QPs\t : OFF" hid that field in every log.
TEST(PerftestImport, PublishedCopiesWithoutTabsReadEveryHeaderField) {
  struct Case {
    const char *file, *key, *device, *connection, *link;
    std::size_t rows;
    double gbits_at_first;
  };
  for (const auto &c : {Case{"ib_send_bw_mlx5_ib_squeezed_published.txt", "rdma.send_bw", "mlx5_0",
                             "RC", "IB", 1, 97.36},
                        Case{"ib_send_bw_ud_mlx4_qdr_published.txt", "rdma.send_bw", "mlx4_0", "UD",
                             "IB", 12, 0.0 /* rows checked below */},
                        Case{"ib_read_bw_cx5_roce_vf_published.txt", "rdma.read_bw", "mlx5_0", "RC",
                             "Ethernet", 1, 10401.76 * 1048576 * 8 / 1e9}}) {
    const auto records = import_perftest(perftest_fixture(c.file), c.file);
    ASSERT_EQ(records.size(), c.rows) << c.file;
    const Record &r = records.front();
    EXPECT_EQ(r.key, c.key) << c.file;
    EXPECT_EQ(r.params.at("device"), c.device) << c.file;
    EXPECT_EQ(r.params.at("qps"), 1) << c.file;
    EXPECT_EQ(r.params.at("connection"), c.connection) << c.file;
    EXPECT_EQ(r.params.at("link_layer"), c.link) << c.file;
    EXPECT_EQ(r.params.at("rdma_cm"), "OFF") << c.file;
    EXPECT_EQ(r.status, Status::ok) << c.file;
    if (c.gbits_at_first > 0)
      EXPECT_NEAR(r.metrics.at("bandwidth_gbits_per_s").get<double>(), c.gbits_at_first, 1e-6)
          << c.file;
    else // the UD sweep: 2 B to 4 KiB, the MTU
      EXPECT_EQ(records.back().params.at("size_bytes"), 4096) << c.file;
  }
}

// Every real perftest log here, and the same log as a copy that squeezed each run of tabs and
// spaces into one space (a rendered README, `tr -s`), import to the same records: perftest's
// first field of a header line holds one word, so " Number of qps : 4 Transport type : IB" is
// still two fields. It once read qps as "4 Transport type".
TEST(PerftestImport, ACopyWithEveryGapSqueezedToOneSpaceImportsTheSame) {
  namespace fs = std::filesystem;
  const fs::path root(RAILGAUGE_TEST_FIXTURES);
  std::vector<std::string> logs;
  for (const char *dir : {"rdma/perftest", "verdicts/real", "verdicts/real/moc_read_pairs"})
    for (const auto &e : fs::directory_iterator(root / dir))
      if (e.path().extension() != ".md" && e.is_regular_file())
        logs.push_back(fs::relative(e.path(), root).string());
  int imported = 0;
  for (const auto &log : logs) {
    const std::string text = testing::fixture_text(log);
    if (text.find(" Test\n") == std::string::npos || text.find("#bytes") == std::string::npos)
      continue; // not a perftest client's table
    std::string squeezed;
    for (const char c : text) {
      const char w = c == '\t' ? ' ' : c;
      if (!(w == ' ' && !squeezed.empty() && squeezed.back() == ' '))
        squeezed += w;
    }
    std::vector<Record> original, copy;
    try {
      original = import_perftest(text, log);
    } catch (const InputError &) {
      EXPECT_THROW(import_perftest(squeezed, log), InputError) << log;
      continue;
    }
    copy = import_perftest(squeezed, log);
    ASSERT_EQ(copy.size(), original.size()) << log;
    for (std::size_t i = 0; i < copy.size(); ++i) {
      EXPECT_EQ(copy[i].params, original[i].params) << log << " row " << i;
      EXPECT_EQ(copy[i].metrics, original[i].metrics) << log << " row " << i;
    }
    ++imported;
  }
  EXPECT_GE(imported, 20); // the Soft-RoCE, ionic and MOC H100 logs
}

} // namespace
} // namespace railgauge::importers
