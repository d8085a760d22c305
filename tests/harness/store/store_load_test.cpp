// The TCP store under load: a flood of connections that never say hello may not keep a rank out
// or fill rank 0's descriptor table; and a barrier that times out names the missing ranks before
// strangers. A process that has run out of file descriptors: store_exhaustion_test.cpp.
#include <algorithm>
#include <cerrno>
#include <memory>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "harness/store/descriptor_limit.h"
#include "harness/store/refusal_log.h"
#include "harness/store/tcp_store.h"
#include "silent_connection.h"
#include "tests/harness/store/store_test_token.h"

namespace railgauge {
namespace {

using namespace std::chrono_literals;

TEST(StoreUnderLoad, SilentConnectionsStayInASmallPoolAndARankStillGetsIn) {
  TcpStoreServerOptions options;
  options.max_unauthenticated = 16;
  TcpStoreServer server({"127.0.0.1", 0}, kToken, options);
  std::vector<UniqueFd> flood;
  for (int i = 0; i < 300; ++i)
    flood.push_back(silent_connection(server.endpoint().port));
  // A rank connecting while the flood sits gets in and is served.
  TcpStoreClient rank(server.endpoint(), kToken, 1, {5000ms, 5000ms, 5000ms});
  rank.set("k", "v");
  EXPECT_EQ(server.get("k", 1000ms), "v");
  EXPECT_LE(server.connection_count(), options.max_unauthenticated + 1);
  EXPECT_GE(server.refusals().total(), 300u - options.max_unauthenticated);
  EXPECT_NE(server.refusals().recent().back().why.find("dropped before its hello"),
            std::string::npos);
}

TEST(StoreUnderLoad, TheConnectionLimitStaysBelowTheDescriptorLimit) {
  TcpStoreServer server({"127.0.0.1", 0}, kToken);
  EXPECT_LE(server.connection_limit() + 256, std::max<std::size_t>(descriptor_limit(), 512));
  TcpStoreServerOptions small;
  small.max_connections = 3;
  EXPECT_EQ(TcpStoreServer({"127.0.0.1", 0}, kToken, small).connection_limit(), 3u);
}

TEST(StoreUnderLoad, ADescriptorErrorNamesThisProcessNotThePeer) {
  const auto text = descriptor_exhaustion_text("socket", EMFILE);
  EXPECT_EQ(text.find("socket: Too many open files: this process has used up its"), 0u) << text;
  EXPECT_NE(text.find("nothing at the other end is at fault"), std::string::npos) << text;
}

TEST(StoreUnderLoad, ABarrierTimeoutNamesTheMissingRanksBeforeStrangers) {
  RefusalLog log;
  log.add({"10.0.0.2:4000", 2, "wrong run token: every rank of a run needs the same token"});
  for (int i = 0; i < 40; ++i) // pushes rank 2's refusal out of the recent ones
    log.add({"10.9.9.9:" + std::to_string(5000 + i), -1, "no hello within 3000 ms"});
  log.add({"10.9.9.9:6000", 7, "wrong run token"}); // another run's rank 7
  const std::string timeout = "barrier 'railgauge/start': rank 2 of 3 did not arrive within 5 s";
  const auto text = explain_missing_ranks(timeout, {2}, log);
  EXPECT_EQ(text.find(timeout + "; the store refused a connection that said it was rank 2: "
                                "wrong run token"),
            0u)
      << text;
  EXPECT_NE(text.find("refused 41 other connections"), std::string::npos) << text;
  EXPECT_LT(text.find("rank 2:"), text.find("10.9.9.9")) << text;
  // With no refusal of a missing rank, the strangers are still said apart from the timeout.
  const auto only_strangers = explain_missing_ranks(timeout, {1}, log);
  EXPECT_EQ(only_strangers.find("said it was rank"), std::string::npos) << only_strangers;
  EXPECT_NE(only_strangers.find("refused 42 other connections"), std::string::npos);
}

// A thousand ranks as threads through one server (rank 0's): every rank connects and passes a
// barrier, then all-gathers a value. Rank 0 gathering into one key keeps both O(n) requests;
// the n^2 gets before took 4.2 s at 256 ranks (docs/rdma.md, "Control plane").
TEST(StoreUnderLoad, AThousandRanksRendezvousAndAllGatherThroughOneServer) {
  constexpr int kRanks = 1024;
  TcpStoreServer server({"127.0.0.1", 0}, kToken);
  std::vector<std::thread> threads;
  std::vector<int> right(kRanks, 0);
  const auto t0 = SteadyClock::now();
  for (int r = 0; r < kRanks; ++r)
    threads.emplace_back([&, r] {
      std::unique_ptr<TcpStoreClient> client;
      if (r > 0)
        client = std::make_unique<TcpStoreClient>(server.endpoint(), kToken, r);
      Store &store = r == 0 ? static_cast<Store &>(server) : *client;
      store_barrier(store, "in", r, kRanks, 60s);
      const auto all = store_all_gather(store, "round", r, kRanks, std::to_string(r), 60s);
      bool ok = all.size() == kRanks;
      for (int q = 0; ok && q < kRanks; ++q)
        ok = all[q] == std::to_string(q);
      right[r] = ok;
      store_barrier(store, "out", r, kRanks, 60s);
    });
  for (auto &t : threads)
    t.join();
  EXPECT_EQ(std::count(right.begin(), right.end(), 1), kRanks);
  // A loose bound for a shared 2-core machine: the measured figures are in docs/rdma.md.
  EXPECT_LT(std::chrono::duration<double>(SteadyClock::now() - t0).count(), 20.0);
}

} // namespace
} // namespace railgauge
