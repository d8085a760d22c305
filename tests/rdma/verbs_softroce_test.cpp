// Verbs end to end on a real RDMA device: Soft-RoCE (rxe0) in the VM that
// scripts/softroce_vm.sh boots, or any NIC. Without a device the tests skip, unless
// RAILGAUGE_REQUIRE_RDMA=1 (set in the VM), where a missing device fails them.
#include <atomic>

#include <gtest/gtest.h>

#include <infiniband/verbs.h>

#include <cstdlib>
#include <thread>

#include "harness/cuda/device.h"
#include "harness/store/memory_store.h"
#include "rdma/gid_select.h"
#include "rdma/matrix_endpoints.h"
#include "rdma/verbs/endpoint.h"
#include "rdma/verbs_benchmark.h"
#include "rdma/verbs_point.h"
#include "tests/support/quick_run_context.h"
#include "tests/support/thread_ranks.h"

namespace railgauge::rdma {
namespace {

class VerbsSoftRoce : public railgauge::testing::QuickRunContextTest {
protected:
  void SetUp() override {
    std::string why;
    devices_ = list_verbs_devices(why);
    if (devices_.empty()) {
      const char *require = std::getenv("RAILGAUGE_REQUIRE_RDMA");
      if (require && std::string(require) == "1")
        FAIL() << "RAILGAUGE_REQUIRE_RDMA=1 but " << why;
      GTEST_SKIP() << why;
    }
  }
  VerbsPointSpec spec(Verb verb, Pattern pattern, std::size_t size) {
    VerbsPointSpec s;
    s.verb = verb;
    s.pattern = pattern;
    s.size_bytes = size;
    s.point_id = "test/" + std::to_string(next_id_++);
    return s;
  }
  void expect_ok(const Outcome &out, const std::string &what) {
    EXPECT_EQ(out.status, Status::ok) << what << ": " << out.reason.value_or("");
    EXPECT_EQ(out.metrics.value("verified", false), true) << what << ": " << out.metrics.dump();
    EXPECT_TRUE(out.metrics.contains("port_counter_deltas")) << what;
  }
  std::vector<std::string> devices_;
  int next_id_ = 0;
};

TEST_F(VerbsSoftRoce, EveryVerbBandwidthUniAndBidirectionalWithDataCheck) {
  for (Verb verb : {Verb::write, Verb::read, Verb::send})
    for (Pattern pattern : {Pattern::bandwidth, Pattern::bandwidth_bidirectional})
      for (std::size_t size : {std::size_t{2}, std::size_t{4096}, std::size_t{1} << 20}) {
        const std::string what = std::string(to_string(verb)) +
                                 (pattern == Pattern::bandwidth ? " uni " : " bidir ") +
                                 std::to_string(size) + " B";
        const Outcome out = run_verbs_point(ctx_, spec(verb, pattern, size));
        expect_ok(out, what);
        EXPECT_GT(out.metrics.value("bandwidth_gbits_per_s", 0.0), 0.0) << what;
        EXPECT_GT(out.metrics.value("message_rate_per_s", 0.0), 0.0) << what;
        if (pattern == Pattern::bandwidth_bidirectional) {
          EXPECT_GT(out.metrics.value("bidirectional_gbits_per_s", 0.0),
                    out.metrics.value("bandwidth_gbits_per_s", 0.0))
              << what;
        }
      }
}

// Wrong data injected into every received buffer (one flipped bit): each verb and pattern fails
// with the count of wrong bytes, never ok.
TEST_F(VerbsSoftRoce, InjectedWrongDataFailsEveryVerbWithTheCount) {
  for (Verb verb : {Verb::write, Verb::read, Verb::send})
    for (Pattern pattern : {Pattern::bandwidth, Pattern::latency}) {
      VerbsPointSpec s = spec(verb, pattern, 4096);
      std::atomic<int> buffers{0};
      s.before_data_check = [&](std::uint8_t *data, std::size_t bytes) {
        data[bytes / 2] ^= 0x01;
        ++buffers;
      };
      const Outcome out = run_verbs_point(ctx_, s);
      const std::string what = std::string(to_string(verb)) + " " + std::to_string(buffers);
      EXPECT_EQ(out.status, Status::failed) << what << ": " << out.reason.value_or("");
      EXPECT_GT(buffers.load(), 0) << what;
      EXPECT_EQ(out.metrics.value("wrong_bytes", 0), buffers.load()) << what;
      EXPECT_NE(out.reason.value_or("").find("bytes differ from the pattern"), std::string::npos)
          << what;
    }
}

TEST_F(VerbsSoftRoce, EveryVerbLatencyHasOrderedPercentiles) {
  for (Verb verb : {Verb::write, Verb::read, Verb::send})
    for (std::size_t size : {std::size_t{2}, std::size_t{8}, std::size_t{65536}}) {
      const std::string what = std::string(to_string(verb)) + " " + std::to_string(size) + " B";
      const Outcome out = run_verbs_point(ctx_, spec(verb, Pattern::latency, size));
      expect_ok(out, what);
      const auto &l = out.metrics.at("latency");
      EXPECT_GT(l.at("n").get<int>(), 0) << what;
      EXPECT_LE(l.at("min_s").get<double>(), l.at("p50_s").get<double>()) << what;
      EXPECT_LE(l.at("p50_s").get<double>(), l.at("p99_9_s").get<double>()) << what;
      EXPECT_LE(l.at("p99_9_s").get<double>(), l.at("max_s").get<double>()) << what;
      EXPECT_GT(l.at("min_s").get<double>(), 0.0) << what;
    }
}

TEST_F(VerbsSoftRoce, SeveralQpsPostListsModerationAndInline) {
  VerbsPointSpec s = spec(Verb::write, Pattern::bandwidth, 64);
  s.qps = 4;
  s.post_list = 8;
  s.cq_moderation = 32;
  s.inline_bytes = 64;
  const Outcome out = run_verbs_point(ctx_, s);
  expect_ok(out, "4 QPs");
  EXPECT_EQ(out.derived_params.at("qps_used"), 4);
  EXPECT_EQ(out.derived_params.at("inline_used"),
            out.derived_params.at("max_inline_granted_bytes").get<int>() >= 64);
}

// GPUDirect RDMA: the slots in GPU memory. Without a usable GPU (the VM) the point is waived
// saying so; with one it runs and names its registration, or (rxe pins pages with the CPU and
// registers neither dma-buf nor device pointers) fails naming both ways tried.
TEST_F(VerbsSoftRoce, GpuMemoryRunsOrSaysWhyNot) {
  VerbsPointSpec s = spec(Verb::write, Pattern::bandwidth, 65536);
  s.gpu = 0;
  Outcome out;
  try {
    out = run_verbs_point(ctx_, s);
  } catch (const BackendError &e) { // what the runner turns into the point's error record
    out.status = Status::error;
    out.reason = e.what();
  }
  if (const auto no_gpu = gpu::cuda_unavailable_reason()) {
    EXPECT_EQ(out.status, Status::waived);
    EXPECT_NE(out.reason.value_or("").find(*no_gpu), std::string::npos) << *out.reason;
    return;
  }
  if (out.status == Status::ok) {
    expect_ok(out, "WRITE into GPU memory");
    const std::string how = out.derived_params.value("memory_registration", "");
    EXPECT_TRUE(how == "dmabuf" || how == "peermem") << how;
    EXPECT_EQ(out.device.value("gpu", -1), 0);
  } else {
    const std::string why = out.reason.value_or("");
    EXPECT_NE(why.find("dma-buf"), std::string::npos) << why;
    EXPECT_NE(why.find("peer memory"), std::string::npos) << why;
  }
  VerbsPointSpec lat = spec(Verb::write, Pattern::latency, 64);
  lat.gpu = 0;
  EXPECT_EQ(run_verbs_point(ctx_, lat).status, Status::waived);
}

TEST_F(VerbsSoftRoce, TwoRanksAsThreadsThroughTheStore) {
  MemoryStore store;
  Topology topology = Topology::load_this_machine();
  GBenchSampler unused;
  RunContext server_ctx(topology, unused, "test", 1);
  server_ctx.set_world(2, &store);
  ctx_.set_world(2, &store);
  for (Verb verb : {Verb::write, Verb::send}) {
    for (Pattern pattern : {Pattern::bandwidth, Pattern::latency}) {
      VerbsPointSpec s = spec(verb, pattern, 4096);
      s.mode = "ranks";
      Outcome server_out;
      std::thread server([&] { server_out = run_verbs_point(server_ctx, s); });
      const Outcome client_out = run_verbs_point(ctx_, s);
      server.join();
      expect_ok(client_out, "rank 0");
      EXPECT_EQ(server_out.status, Status::ok) << server_out.reason.value_or("");
      EXPECT_EQ(server_out.metrics.at("role"), "server");
    }
  }
}

// rdma.pair_matrix over real verbs: four ranks as threads, each standing for a node
// (node_identity=rank), every ACTIVE device a rail (rxe0 and rxe1 in the VM). Every pair is
// measured with data checks; the matrix's verdicts depend on the emulation's noise and are not
// asserted, only that every pair ran and the retests and findings are well-formed.
TEST_F(VerbsSoftRoce, PairMatrixOfFourRanksOverEveryNic) {
  std::string why;
  const auto rails = active_devices("/sys", devices_, 1, why);
  ASSERT_FALSE(rails.empty()) << why;
  MemoryStore store;
  const auto outs =
      testing::run_ranks_as_threads(4, store, testing::brief_measure_spec(), [](RunContext &ctx) {
        auto bench = make_verbs_pair_matrix();
        Point p = testing::first_default_point(*bench);
        p.set("node_identity", std::string("rank"));
        p.set("bandwidth_size_bytes", std::int64_t{65536});
        return bench->run(ctx, p);
      });
  for (const Outcome &o : outs)
    ASSERT_EQ(o.status, Status::ok) << o.reason.value_or("");
  const auto &m = outs[0].metrics;
  ASSERT_TRUE(m.contains("pairs")) << m.dump();
  EXPECT_EQ(m.at("endpoints").size(), 4 * rails.size());
  EXPECT_EQ(m.at("pairs").size(), 6 * rails.size()); // C(4,2) node pairs per rail
  for (const auto &pair : m.at("pairs")) {
    EXPECT_FALSE(pair.contains("error")) << pair.dump();
    EXPECT_GT(pair.at("latency_p50_s").get<double>(), 0.0) << pair.dump();
    EXPECT_GT(pair.at("bandwidth_gbits_per_s").get<double>(), 0.0) << pair.dump();
  }
  for (const auto &f : m.at("findings"))
    EXPECT_FALSE(f.at("text").get<std::string>().empty());
  for (const Outcome &o : outs) {
    EXPECT_GE(o.metrics.at("this_rank_pairs").size(), 3 * rails.size());
    // Every rank's own ports, summed over its pairs, where the rules for rdma.* points look.
    const auto &c = o.metrics.at("port_counter_deltas");
    EXPECT_EQ(c.at("devices").size(), rails.size()) << c.dump();
    if (c.contains("hw_counters") && c.at("hw_counters").contains("rcvd_pkts")) { // rxe has it
      EXPECT_GT(c.at("hw_counters").at("rcvd_pkts").get<std::int64_t>(), 0) << c.dump();
    }
  }
}

TEST_F(VerbsSoftRoce, AutomaticGidIsRoceV2OnRxe) {
  const PortGids gids = read_port_gids("/sys", devices_.front(), 1);
  const GidChoice choice = choose_gid(gids, std::nullopt);
  if (gids.link_layer == LinkLayer::ethernet) {
    EXPECT_EQ(choice.type, GidType::roce_v2) << choice.why;
  }
  EXPECT_FALSE(choice.why.empty());
}

TEST_F(VerbsSoftRoce, CompletionErrorNamesStatusWrIdAndVendorError) {
  EndpointConfig config;
  config.slot_bytes = 4096;
  Topology topology = Topology::load_this_machine();
  Endpoint a(config, topology.get()), b(config, topology.get());
  EndpointInfo info_b = b.local_info();
  info_b.rkey ^= 0x5a5a; // a key the peer never issued: the responder refuses the WRITE
  a.connect(info_b);
  b.connect(a.local_info());
  ibv_sge sge{a.slot_addr(0), 64, a.lkey()};
  ibv_send_wr wr{};
  wr.wr_id = 0xabc;
  wr.sg_list = &sge;
  wr.num_sge = 1;
  wr.opcode = IBV_WR_RDMA_WRITE;
  wr.send_flags = IBV_SEND_SIGNALED;
  wr.wr.rdma.remote_addr = a.remote_slot_addr(0);
  wr.wr.rdma.rkey = info_b.rkey;
  ibv_send_wr *bad = nullptr;
  ASSERT_EQ(ibv_post_send(a.qp(0), &wr, &bad), 0);
  ibv_wc wc[1];
  std::string message;
  for (int i = 0; i < 100'000'000 && message.empty(); ++i) {
    try {
      a.poll_send(wc, 1);
    } catch (const BackendError &e) {
      message = e.what();
    }
  }
  EXPECT_NE(message.find("remote access error"), std::string::npos) << message;
  EXPECT_NE(message.find("wr_id 0xabc"), std::string::npos) << message;
  EXPECT_NE(message.find("vendor_err"), std::string::npos) << message;
}

} // namespace
} // namespace railgauge::rdma
