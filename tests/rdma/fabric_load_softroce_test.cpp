// The fabric-load benchmarks over real verbs: four ranks as threads on the first ACTIVE device
// (rxe0 in the VM of scripts/softroce_vm.sh). Not across rxe0 and rxe1: rxe delivers a packet
// only to the device whose netdev it arrives on, and one kernel routes a packet between its own
// two addresses through `lo`, where no rxe device listens, so no message would complete. Every
// point runs, checks its data and reads the counters of every end. Without a device the tests skip,
// unless RAILGAUGE_REQUIRE_RDMA=1 (the VM), where a missing device fails them. The figures of an
// emulated device are not asserted beyond being positive: only the records' shape is.
#include <gtest/gtest.h>

#include <cstdlib>
#include <set>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "harness/store/memory_store.h"
#include "harness/waiver.h"
#include "rdma/fabric_load/fabric_load_benchmarks.h"
#include "rdma/matrix_endpoints.h"
#include "rdma/verbs/endpoint.h"
#include "tests/support/thread_ranks.h"

namespace railgauge::rdma {
namespace {

class FabricLoadSoftRoce : public ::testing::Test {
protected:
  void SetUp() override {
    std::string why;
    const auto devices = list_verbs_devices(why);
    if (devices.empty()) {
      const char *require = std::getenv("RAILGAUGE_REQUIRE_RDMA");
      if (require && std::string(require) == "1")
        FAIL() << "RAILGAUGE_REQUIRE_RDMA=1 but " << why;
      GTEST_SKIP() << why;
    }
    const auto active = active_devices("/sys", devices, 1, why);
    ASSERT_FALSE(active.empty()) << why;
    devices_ = active.front();
  }
  std::vector<Outcome> run(std::unique_ptr<Benchmark> (*make)(),
                           const std::map<std::string, AxisValue> &axes) {
    MemoryStore store;
    return testing::run_ranks_as_threads(
        4, store, testing::brief_measure_spec(), [&](RunContext &ctx) {
          auto bench = make();
          Point p = testing::first_default_point(*bench);
          p.set("device", devices_);
          p.set("size_bytes", std::int64_t{65536}); // emulation: about 1 ms a message
          for (const auto &[name, value] : axes)
            p.set(name, value);
          if (const auto why = bench->supported(ctx, p))
            return Outcome::waived(*why);
          return bench->run(ctx, p);
        });
  }
  // Every end's congestion figures: rxe has no PFC, CNP or ECN counters, which must be named
  // absent, never written as zero.
  static void expect_counters(const Outcome &o) {
    ASSERT_TRUE(o.metrics.contains("port_counter_deltas")) << o.metrics.dump();
    const auto &c = o.metrics.at("congestion");
    for (const char *figure : {"pfc_pause_frames_rx", "pfc_pause_duration_tx_us", "cnp_sent"})
      if (!c.at("counters").contains(figure)) {
        const auto &absent = c.at("absent");
        EXPECT_NE(std::find(absent.begin(), absent.end(), figure), absent.end()) << c.dump();
      }
  }
  std::string devices_;
};

TEST_F(FabricLoadSoftRoce, QpScalingSpreadsOneStreamOverItsQpsWithTheirOwnSourcePorts) {
  for (std::int64_t qps : {1, 4}) {
    const auto outs = run(make_qp_scaling, {{"qps", qps}});
    ASSERT_EQ(outs[0].status, Status::ok) << outs[0].reason.value_or("");
    ASSERT_EQ(outs[1].status, Status::ok) << outs[1].reason.value_or("");
    for (int r : {2, 3})
      EXPECT_TRUE(is_not_applicable(outs[static_cast<std::size_t>(r)].reason.value_or("")));
    const auto &m = outs[0].metrics;
    EXPECT_EQ(outs[0].derived_params.at("role"), "sender");
    EXPECT_EQ(m.at("verified"), true);
    EXPECT_GT(m.at("bandwidth_gbits_per_s").get<double>(), 0) << m.dump();
    if (qps > 1) {
      EXPECT_EQ(m.at("per_qp_gbits_per_s").at("values").size(), static_cast<std::size_t>(qps));
      EXPECT_GT(m.at("jain_fairness_index").get<double>(), 0);
    }
    if (outs[0].derived_params.at("link_layer") == "Ethernet") {
      const auto ports = m.at("flow_entropy").at("udp_source_ports").get<std::vector<int>>();
      EXPECT_EQ(std::set<int>(ports.begin(), ports.end()).size(), static_cast<std::size_t>(qps));
    }
    expect_counters(outs[0]);
    expect_counters(outs[1]);
  }
}

TEST_F(FabricLoadSoftRoce, IncastOnEachReceiverHoldsEveryFlowAndEveryEnd) {
  for (std::int64_t receiver : {0, 3}) {
    const auto outs = run(make_incast, {{"receiver", receiver}});
    for (const Outcome &o : outs) {
      ASSERT_EQ(o.status, Status::ok) << o.reason.value_or("");
      EXPECT_EQ(o.metrics.at("verified"), true);
      expect_counters(o);
    }
    const auto &m = outs[static_cast<std::size_t>(receiver)].metrics;
    EXPECT_EQ(m.at("per_flow_gbits_per_s").at("values").size(), 3u) << m.dump();
    EXPECT_GT(m.at("aggregate_gbits_per_s").get<double>(), 0);
    const double jain = m.at("jain_fairness_index").get<double>();
    EXPECT_GT(jain, 1.0 / 3 - 1e-9);
    EXPECT_LE(jain, 1.0 + 1e-9);
    EXPECT_EQ(m.at("ends").size(), 4u);
    EXPECT_TRUE(m.contains("line_rate_gbits_per_s")) << "rxe states a rate in sysfs";
  }
  // A receiver past the last rank is not applicable on every rank.
  for (const Outcome &o : run(make_incast, {{"receiver", std::int64_t{5}}}))
    EXPECT_TRUE(is_not_applicable(o.reason.value_or("")));
}

TEST_F(FabricLoadSoftRoce, LatencyUnderBulkAndIncastLoadBesideTheIdleFigure) {
  for (const char *load : {"bulk", "incast"}) {
    const auto outs = run(make_latency_under_load, {{"load", std::string(load)}});
    ASSERT_EQ(outs[0].status, Status::ok) << load << ": " << outs[0].reason.value_or("");
    const auto &m = outs[0].metrics;
    for (const char *summary : {"latency", "latency_idle"})
      EXPECT_GT(m.at(summary).at("p50_s").get<double>(), 0) << load << " " << m.dump();
    EXPECT_GT(m.at("loaded_over_idle").at("p99").get<double>(), 0);
    EXPECT_EQ(m.at("verified"), true);
    EXPECT_GT(m.at("load_gbits_per_s").at("sum").get<double>(), 0);
    const std::size_t ends = std::string(load) == "bulk" ? 2 : 4;
    EXPECT_EQ(m.at("ends").size(), ends);
    for (std::size_t r = 0; r < 4; ++r) {
      if (r < ends) {
        EXPECT_EQ(outs[r].status, Status::ok) << load << " rank " << r;
        expect_counters(outs[r]);
      } else {
        EXPECT_TRUE(is_not_applicable(outs[r].reason.value_or("")));
      }
    }
  }
}

} // namespace
} // namespace railgauge::rdma
