// The TCP baseline on loopback: every pattern with its data check, the bounds and the bind
// rule, and the pair matrix with four ranks as threads on an in-memory store.
#include <gtest/gtest.h>

#include <sched.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdlib>
#include <functional>
#include <set>
#include <thread>

#include <fmt/format.h>

#include "harness/cpus_given.h"
#include "harness/error.h"
#include "harness/store/memory_store.h"
#include "rdma/tcp/tcp_benchmarks.h"
#include "rdma/tcp/tcp_hello.h"
#include "rdma/tcp/tcp_point.h"
#include "rdma/tcp/tcp_socket.h"
#include "records/pair_matrix_fields.h"
#include "records/rdma_record.h"
#include "tests/support/quick_run_context.h"
#include "tests/support/thread_ranks.h"

namespace railgauge::rdma {
namespace {

class TcpBaseline : public railgauge::testing::QuickRunContextTest {
protected:
  // One loopback point; its outcome when it must run (it then must be ok), nullopt when its
  // spinning ends would share a CPU (one CPU given: it then must be waived).
  std::optional<Outcome> run_ok_unless_refused(Pattern pattern, std::size_t size, SocketWait wait) {
    TcpPointSpec s;
    s.pattern = pattern;
    s.size_bytes = size;
    s.wait = wait;
    s.point_id = fmt::format("p{}-{}-{}", static_cast<int>(pattern), size,
                             wait == SocketWait::spin ? "spin" : "sleep");
    Outcome out = run_tcp_point(ctx_, s);
    if (spin_refusal(ctx_.topology(), s)) {
      EXPECT_EQ(out.status, Status::waived);
      return std::nullopt;
    }
    EXPECT_EQ(out.status, Status::ok) << out.reason.value_or("");
    if (out.status != Status::ok)
      return std::nullopt;
    return out;
  }
};

TEST_F(TcpBaseline, LatencyPingPongOnLoopback) {
  for (const auto wait : {SocketWait::sleep, SocketWait::spin})
    for (std::size_t size : {std::size_t{2}, std::size_t{65536}}) {
      const auto measured = run_ok_unless_refused(Pattern::latency, size, wait);
      if (!measured)
        continue;
      const Outcome &out = *measured;
      EXPECT_TRUE(out.metrics.at("verified").get<bool>());
      const auto &l = out.metrics.at("latency");
      EXPECT_GT(l.at("min_s").get<double>(), 0.0);
      EXPECT_LE(l.at("p50_s").get<double>(), l.at("max_s").get<double>());
      EXPECT_GT(out.metrics.at("server_messages").get<int>(), 0);
      // Loss on the path shows in the kernel's counters around the point.
      const auto &counters = out.metrics.at("tcp_counter_deltas");
      EXPECT_EQ(counters.at("netdev"), "lo");
      EXPECT_GE(counters.at("host_tcp").at("RetransSegs").get<long long>(), 0);
      EXPECT_GT(counters.at("netdev_statistics").at("rx_packets").get<long long>(), 0);
      // Two cores given (CI's machine has 2): the two ends ran on two of them, and say which.
      if (const auto ends = loopback_end_pus(ctx_.topology())) {
        EXPECT_NE(ends->first, ends->second);
        ASSERT_TRUE(out.derived_params.contains("client_pu")) << out.derived_params.dump();
        EXPECT_EQ(out.derived_params.at("client_pu"), ends->first);
        EXPECT_EQ(out.derived_params.at("server_pu"), ends->second);
      } else {
        EXPECT_FALSE(out.derived_params.contains("client_pu"));
      }
    }
}

// tcp_lat and tcp_bw spin by default, as the verbs tests poll; sleep stays one axis value away.
TEST(TcpAxes, WaitDefaultsToSpinAndOffersSleep) {
  const auto axes = make_tcp_lat()->axes();
  const auto wait =
      std::find_if(axes.begin(), axes.end(), [](const Axis &a) { return a.name == "wait"; });
  ASSERT_NE(wait, axes.end());
  ASSERT_EQ(wait->defaults.size(), 1u);
  EXPECT_EQ(std::get<std::string>(wait->defaults[0]), "spin");
  EXPECT_EQ(wait->choices, (std::vector<std::string>{"spin", "sleep"}));
  const auto bw = make_tcp_bw()->axes();
  EXPECT_EQ(std::count_if(bw.begin(), bw.end(),
                          [&](const Axis &a) {
                            return a.name == "wait" && a.choices == wait->choices &&
                                   a.defaults == wait->defaults;
                          }),
            1);
}

// A connected pair on loopback, and `op` on it, which must fail at its 0.2 s deadline: after it,
// and long before the 5 s a hung spin would show.
void expect_spin_times_out(
    const std::function<void(const Socket &client, const Socket &server)> &op) {
  const Socket listener = listen_on("127.0.0.1");
  const Socket client = connect_to(listening_endpoint(listener, "127.0.0.1"), 5);
  const Socket server = accept_one(listener, 5);
  const auto start = std::chrono::steady_clock::now();
  try {
    op(client, server);
    FAIL() << "the operation returned before its deadline";
  } catch (const BackendError &e) {
    EXPECT_NE(std::string(e.what()).find("timed out"), std::string::npos) << e.what();
  }
  const double waited_s =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  EXPECT_GE(waited_s, 0.2);
  EXPECT_LT(waited_s, 5.0);
}

// A spinning receive keeps its deadline: a peer that never sends is an error within it, not a
// thread spinning for ever.
TEST(TcpSocket, ASpinningReceiveTimesOutAtItsDeadline) {
  expect_spin_times_out([](const Socket &, const Socket &server) {
    char byte = 0;
    recv_all(server, &byte, 1, 0.2, SocketWait::spin);
  });
}

// A spinning send keeps its deadline too: a peer that never reads fills both socket buffers
// (64 MiB is past Linux's largest defaults) and the send is an error within it.
TEST(TcpSocket, ASpinningSendTimesOutWhenThePeerNeverReads) {
  expect_spin_times_out([](const Socket &client, const Socket &) {
    const std::vector<char> bytes(std::size_t{64} << 20, 'x');
    send_all(client, bytes.data(), bytes.size(), 0.2, SocketWait::spin);
  });
}

// Two spinning ends on one CPU would each wait out the other's time slice: a loopback point
// that spins in a process given one CPU is waived, and says how to measure anyway.
TEST_F(TcpBaseline, ASpinningLoopbackPointOnOneCpuIsWaived) {
  TcpPointSpec s;
  s.pattern = Pattern::latency;
  s.wait = SocketWait::spin;
  std::optional<std::string> spin_reason, sleep_reason;
  std::thread one_cpu([&] {
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET(sched_getcpu(), &set);
    ASSERT_EQ(sched_setaffinity(0, sizeof set, &set), 0);
    spin_reason = tcp_waive_reason(ctx_, s);
    TcpPointSpec sleeping = s;
    sleeping.wait = SocketWait::sleep;
    sleep_reason = tcp_waive_reason(ctx_, sleeping);
  });
  one_cpu.join();
  ASSERT_TRUE(spin_reason.has_value());
  EXPECT_NE(spin_reason->find("use wait=sleep"), std::string::npos) << *spin_reason;
  EXPECT_FALSE(sleep_reason.has_value()) << *sleep_reason;
}

// Ranks of one host whose CPU masks overlap share the CPUs: more ranks than this machine's cores
// can hold apart. Two spinning ends each in loopback are then too many; in mode=ranks only ranks
// 0 and 1 spin, one end each.
TEST_F(TcpBaseline, SpinningRanksThatShareTheirCpusAreWaived) {
  const std::size_t cores = host_cores(ctx_.topology());
  const char *before = std::getenv("OMPI_COMM_WORLD_LOCAL_SIZE");
  const std::string kept = before ? before : "";
  setenv("OMPI_COMM_WORLD_LOCAL_SIZE", std::to_string(cores + 1).c_str(), 1);
  TcpPointSpec s;
  s.pattern = Pattern::latency;
  s.wait = SocketWait::spin;
  const auto loopback = spin_refusal(ctx_.topology(), s);
  s.mode = "ranks";
  const auto ranks = spin_refusal(ctx_.topology(), s);
  s.wait = SocketWait::sleep;
  const auto sleeping = spin_refusal(ctx_.topology(), s);
  if (before)
    setenv("OMPI_COMM_WORLD_LOCAL_SIZE", kept.c_str(), 1);
  else
    unsetenv("OMPI_COMM_WORLD_LOCAL_SIZE");
  ASSERT_TRUE(loopback.has_value());
  EXPECT_NE(loopback->find(fmt::format("{} ranks sharing them", cores + 1)), std::string::npos)
      << *loopback;
  EXPECT_EQ(ranks.has_value(), cpus_given() < 2) << ranks.value_or("");
  EXPECT_FALSE(sleeping.has_value());
}

// A topology read from a file is not this machine's: nothing to bind to.
TEST(TcpLoopbackEnds, NoneOnATopologyReadFromAFile) {
  const auto topology = Topology::load_xml(std::string(RAILGAUGE_SOURCE_DIR) +
                                           "/tests/fixtures/topology/h100_8gpu_8nic.hwloc.xml");
  EXPECT_FALSE(loopback_end_pus(topology));
}

TEST_F(TcpBaseline, StreamingUniAndBidirectional) {
  for (const auto wait : {SocketWait::sleep, SocketWait::spin})
    for (Pattern p : {Pattern::bandwidth, Pattern::bandwidth_bidirectional})
      for (std::size_t size : {std::size_t{2}, std::size_t{1} << 20}) {
        const auto measured = run_ok_unless_refused(p, size, wait);
        if (!measured)
          continue;
        const Outcome &out = *measured;
        EXPECT_TRUE(out.metrics.at("verified").get<bool>());
        EXPECT_GT(out.metrics.at("bandwidth_gbits_per_s").get<double>(), 0.0);
        EXPECT_GT(out.metrics.at("message_rate_per_s").get<double>(), 0.0);
      }
}

// Wrong data injected into each received buffer (one flipped bit, on both sides where both
// check): the point fails with the count, never ok.
TEST_F(TcpBaseline, InjectedWrongDataFailsThePointWithTheCount) {
  for (Pattern p : {Pattern::latency, Pattern::bandwidth, Pattern::bandwidth_bidirectional}) {
    TcpPointSpec s;
    s.pattern = p;
    s.size_bytes = 4096;
    s.point_id = "inject" + std::to_string(static_cast<int>(p));
    std::atomic<int> buffers{0};
    s.before_data_check = [&](std::uint8_t *data, std::size_t bytes) {
      data[bytes / 2] ^= 0x10;
      ++buffers;
    };
    const Outcome out = run_tcp_point(ctx_, s);
    EXPECT_EQ(out.status, Status::failed) << out.reason.value_or("");
    // Latency: the echo and the server's message; uni: the server's; bidir: both streams.
    const int expected = p == Pattern::bandwidth ? 1 : 2;
    EXPECT_EQ(buffers, expected);
    EXPECT_EQ(out.metrics.at("wrong_bytes").get<int>(), expected);
    EXPECT_NE(out.reason->find("1 of 4096 bytes differ from the pattern, first at byte 2048"),
              std::string::npos)
        << *out.reason;
    EXPECT_FALSE(out.metrics.contains("verified"));
  }
}

// A pair's server serves only the client that presents the pair token the Store carried, in the
// baseline's protocol version (tcp_hello.h). Strangers first (an HTTP request, a wrong token, a
// client of another version, one that connects and closes) are refused with the reason and
// counted, and the real client still measures.
TEST_F(TcpBaseline, StrangersAreRefusedWithTheReasonAndTheClientStillMeasures) {
  MemoryStore store;
  std::atomic<bool> abort{false};
  TcpPointSpec s;
  s.size_bytes = 8;
  s.timeout_s = 20;
  nlohmann::json served;
  std::thread server([&] { served = tcp_server(s, store, "hello/", abort); });
  const std::string endpoint = store.get("hello/server_endpoint", std::chrono::seconds(10));
  const std::string token = store.get("hello/server_token", std::chrono::seconds(10));
  EXPECT_EQ(token.size(), 32u);
  const auto refusal = [&](const std::function<void(const Socket &)> &stranger) {
    Socket conn = connect_to(endpoint, 5);
    try {
      stranger(conn);
    } catch (const BackendError &e) {
      return std::string(e.what());
    }
    return std::string("accepted");
  };
  { // not a hello at all: the answer is a refusal, then the server closes
    Socket c = connect_to(endpoint, 5);
    const std::string http = "GET / HTTP/1.0\r\n\r\n";
    send_all(c, http.data(), http.size(), 5);
    std::string answer;
    char ch = 0;
    while (answer.size() < 4096 && recv_all(c, &ch, 1, 5))
      answer.push_back(ch);
    EXPECT_NE(answer.find("not a railgauge client (first bytes 'GET / HT')"), std::string::npos)
        << answer;
  }
  EXPECT_NE(refusal([](const Socket &c) {
              send_tcp_hello(c, "0123", 7, 5);
            }).find("refused this connection: wrong pair token from a client saying it is rank 7"),
            std::string::npos);
  EXPECT_NE(refusal([&](const Socket &c) {
              send_tcp_hello(c, token, 1, 5, 99);
            }).find("protocol version 99, this server speaks 1"),
            std::string::npos);
  EXPECT_EQ(refusal([](const Socket &) {}), "accepted"); // connects and closes at once
  const Outcome out = tcp_client(ctx_, s, store, "hello/");
  server.join();
  EXPECT_EQ(out.status, Status::ok) << out.reason.value_or("");
  EXPECT_EQ(out.metrics.at("server_refused_connections"), 4);
  EXPECT_EQ(served.value("refused_connections", 0), 4);
}

// A connection that opens and says nothing holds the server for kTcpHelloTimeoutS at most; a
// server whose client never comes fails at its deadline, naming what it refused meanwhile.
TEST_F(TcpBaseline, ASilentConnectionIsDroppedAndAMissingClientNamed) {
  MemoryStore store;
  std::atomic<bool> abort{false};
  TcpPointSpec s;
  s.size_bytes = 8;
  s.timeout_s = kTcpHelloTimeoutS + 3;
  nlohmann::json served;
  std::thread server([&] { served = tcp_server(s, store, "silent/", abort); });
  Socket silent = connect_to(store.get("silent/server_endpoint", std::chrono::seconds(10)), 5);
  server.join();
  ASSERT_TRUE(served.contains("error")) << served.dump();
  const std::string error = served["error"].get<std::string>();
  EXPECT_NE(error.find("TCP accept: timed out; refused before that: no whole hello within 5 s"),
            std::string::npos)
      << error;
}

TEST_F(TcpBaseline, BindsOnlyToTheNamedAddressAndBoundsSizes) {
  TcpPointSpec s;
  s.bind_address = "192.0.2.77"; // TEST-NET-1: not an address of this machine
  s.point_id = "bind";
  EXPECT_THROW(run_tcp_point(ctx_, s), InputError);
  s.bind_address = "no-such-interface0";
  EXPECT_THROW(run_tcp_point(ctx_, s), InputError);
  EXPECT_EQ(resolve_bind_address("lo"), "127.0.0.1");
  s.bind_address = "127.0.0.1";
  s.size_bytes = kTcpMaxMessageBytes + 1;
  EXPECT_TRUE(tcp_waive_reason(ctx_, s).has_value());
  s.size_bytes = 8;
  s.mode = "ranks";
  EXPECT_TRUE(tcp_waive_reason(ctx_, s).has_value()); // one rank, no store
}

TEST(TcpPairMatrix, FourRanksAsThreadsTestEveryPairOnce) {
  constexpr int kRanks = 4;
  MemoryStore store;
  const auto outs = testing::run_ranks_as_threads(
      kRanks, store, testing::brief_measure_spec(), [](RunContext &ctx) {
        auto bench = make_tcp_pair_matrix();
        Point p = testing::first_default_point(*bench);
        EXPECT_FALSE(bench->supported(ctx, p).has_value());
        return bench->run(ctx, p);
      });
  // Read back through the type the report reads it with (records/pair_matrix_fields.h).
  const auto m = record::PairMatrixFields::read(outs[0].metrics);
  ASSERT_TRUE(m) << outs[0].metrics.dump();
  EXPECT_EQ(m->pairs.size(), 6u); // 4 choose 2
  EXPECT_EQ(m->rounds, 3u);       // n - 1
  EXPECT_EQ(m->endpoints.size(), 4u);
  EXPECT_EQ(m->pairing, "rail_aligned"); // one rail: every rank meets every other
  std::set<std::pair<std::int64_t, std::int64_t>> seen;
  for (const auto &pr : m->pairs) {
    seen.insert(pr.endpoints);
    EXPECT_GT(pr.latency_p50_s.value_or(0), 0.0);
    EXPECT_GT(pr.bandwidth_gbits_per_s.value_or(0), 0.0);
    EXPECT_FALSE(pr.error) << *pr.error;
  }
  EXPECT_EQ(seen.size(), 6u);
  for (int r = 0; r < kRanks; ++r)
    EXPECT_GE(
        outs[static_cast<std::size_t>(r)].metrics.at(record::kPairsPlayedByThisRank).get<int>(), 3);
  for (int r = 1; r < kRanks; ++r)
    EXPECT_FALSE(record::PairMatrixFields::read(outs[static_cast<std::size_t>(r)].metrics))
        << "only rank 0's record holds the matrix";
}

} // namespace
} // namespace railgauge::rdma
