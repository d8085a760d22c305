// The control plane at scale: rendezvous (every rank connects and passes a barrier) and one
// round's all-gather, through the real TCP store with ranks as threads over loopback.
//
//   store_scale RANKS [VALUE_BYTES]
//
// Rendezvous: from the start (no rank connected) to the last rank out of the first barrier.
// All-gather: from rank 0 leaving the barrier before it to the last rank out, and the longest
// single call.
#include <atomic>
#include <chrono>
#include <cstdio>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "harness/store/store.h"
#include "harness/store/tcp_store.h"

using namespace railgauge;
using namespace std::chrono_literals;

namespace {

double seconds_since(SteadyClock::time_point t0) {
  return std::chrono::duration<double>(SteadyClock::now() - t0).count();
}

} // namespace

int main(int argc, char **argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: store_scale RANKS [VALUE_BYTES]\n");
    return 2;
  }
  const int ranks = std::stoi(argv[1]);
  const std::size_t value_bytes = argc > 2 ? std::stoul(argv[2]) : 256;
  TcpStoreServer server({"127.0.0.1", 0}, "scale-token");
  std::vector<double> rendezvous_s(ranks), gather_s(ranks), call_s(ranks);
  std::atomic<int> wrong{0};
  // The expected values, made once rather than once per comparison.
  std::vector<std::string> expected;
  for (int i = 0; i < 26; ++i)
    expected.emplace_back(value_bytes, static_cast<char>('a' + i));
  const auto t0 = SteadyClock::now();
  // Rank 0 leaves a barrier first (it tells the others): the gather is timed from there.
  std::atomic<SteadyClock::rep> gather_start{0};
  std::vector<std::thread> threads;
  for (int r = 0; r < ranks; ++r)
    threads.emplace_back([&, r] {
      std::unique_ptr<TcpStoreClient> client;
      if (r > 0)
        client = std::make_unique<TcpStoreClient>(server.endpoint(), "scale-token", r);
      Store &store = r == 0 ? static_cast<Store &>(server) : *client;
      store_barrier(store, "rendezvous", r, ranks, 120s);
      rendezvous_s[r] = seconds_since(t0);
      store_barrier(store, "gather-start", r, ranks, 120s);
      const auto entered = SteadyClock::now();
      if (r == 0)
        gather_start = entered.time_since_epoch().count();
      const std::string mine(value_bytes, static_cast<char>('a' + r % 26));
      const auto all = store_all_gather(store, "round", r, ranks, mine, 120s);
      call_s[r] = seconds_since(entered);
      gather_s[r] = seconds_since(SteadyClock::time_point(SteadyClock::duration(gather_start)));
      // Every rank checks the count and the sizes; one in 64 (and the last) every byte, so that
      // the check takes little of the cores that ranks still gathering share.
      const bool every_byte = r % 64 == 0 || r == ranks - 1;
      if (static_cast<int>(all.size()) != ranks)
        ++wrong;
      for (int q = 0; q < ranks && q < static_cast<int>(all.size()); ++q)
        if (all[q].size() != value_bytes || (every_byte && all[q] != expected[q % 26]))
          ++wrong;
    });
  for (auto &t : threads)
    t.join();
  double rv = 0, ga = 0, call = 0;
  for (int r = 0; r < ranks; ++r) {
    rv = std::max(rv, rendezvous_s[r]);
    ga = std::max(ga, gather_s[r]);
    call = std::max(call, call_s[r]);
  }
  std::printf("ranks %d: rendezvous %.3f s; all-gather of %zu-byte values %.3f s from rank 0's "
              "start to the last rank's end, longest call %.3f s; wrong values %d\n",
              ranks, rv, value_bytes, ga, call, wrong.load());
  return wrong.load() == 0 ? 0 : 1;
}
