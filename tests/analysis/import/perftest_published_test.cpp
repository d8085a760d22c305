// The perftest importer on published output of what perftest prints beside a result table
// (tests/fixtures/rdma/perftest/README.md): a server's header of another unit than its figures,
// a title with "Post List", a peer that never came up to RTR, an exchange that failed, and an
// atomic's latency.
#include <gtest/gtest.h>

#include "analysis/import/perftest_import.h"
#include "tests/support/fixture_text.h"

namespace railgauge::importers {
namespace {

std::vector<Record> published(const std::string &name) {
  return import_perftest(testing::fixture_text("rdma/perftest/" + name), name);
}

TEST(PerftestPublished, AServersFiguresUnderItsOwnHeaderAreReadByTheirMessageRate) {
  // 94.71 under [MB/sec] with 0.180640 Mpps at 64 KiB: the client's Gb/s. Read as MiB/s it was
  // 0.79 Gb/s, ok.
  const auto records = published("ib_write_bw_server_mbsec_header_of_gbits_client_published.txt");
  ASSERT_EQ(records.size(), 1u);
  EXPECT_EQ(records[0].status, Status::ok);
  EXPECT_NEAR(records[0].metrics.at("bandwidth_gbits_per_s").get<double>(), 94.71, 1e-9);
  EXPECT_NE(records[0].params.value("perftest_unit_read", "").find("the header says MB/sec"),
            std::string::npos);
  // The same row whose rate fits neither unit is no figure.
  std::string text = testing::fixture_text(
      "rdma/perftest/ib_write_bw_server_mbsec_header_of_gbits_client_published.txt");
  text.replace(text.find("0.180640"), 8, "0.360000");
  const auto edited = import_perftest(text, "edited.txt");
  ASSERT_EQ(edited.size(), 1u);
  EXPECT_EQ(edited[0].status, Status::error);
  EXPECT_NE(edited[0].reason.value_or("").find("agree in neither unit"), std::string::npos);
}

TEST(PerftestPublished, APostListTitleIsAWriteBandwidth) {
  const auto records = published("ib_write_bw_post_list_published.txt");
  ASSERT_EQ(records.size(), 1u);
  EXPECT_EQ(records[0].key, "rdma.write_bw");
  EXPECT_NEAR(records[0].metrics.at("bandwidth_gbits_per_s").get<double>(), 0.48, 1e-9);
}

TEST(PerftestPublished, APeerNeverBroughtUpOrExchangedWithIsAFailedPoint) {
  // Both were refused as input ("without a result table"), and the node's failure left its
  // verdict.
  for (const char *name : {"ib_send_bw_rtr_failure_published.txt",
                           "ib_read_bw_server_exchange_failed_published.txt"}) {
    const auto records = published(name);
    ASSERT_EQ(records.size(), 1u) << name;
    EXPECT_EQ(records[0].status, Status::failed) << name;
    EXPECT_NE(records[0].reason.value_or("").find("never connected to its peer"), std::string::npos)
        << name;
  }
}

TEST(PerftestPublished, AnAtomicsLatencyIsTheRoundTrip) {
  const auto records = published("ib_atomic_lat_roce_client_published.txt");
  ASSERT_EQ(records.size(), 1u);
  EXPECT_EQ(records[0].key, "rdma.atomic_lat");
  EXPECT_EQ(records[0].metrics.at("latency_definition"), "round trip (perftest)");
}

} // namespace
} // namespace railgauge::importers
