#include <thread>

#include <gtest/gtest.h>

#include "harness/store/memory_store.h"

namespace railgauge {
namespace {

using namespace std::chrono_literals;

TEST(MemoryStore, GetWaitsForALaterSet) {
  MemoryStore store;
  std::thread writer([&] {
    std::this_thread::sleep_for(20ms);
    store.set("nccl/id", std::string("\0\1\2", 3));
  });
  EXPECT_EQ(store.get("nccl/id", 5000ms), std::string("\0\1\2", 3));
  writer.join();
}

TEST(MemoryStore, TimeoutNamesTheMissingKeys) {
  MemoryStore store;
  store.set("a", "1");
  try {
    store.wait({"a", "b", "c"}, 10ms);
    FAIL() << "wait returned without b and c";
  } catch (const StoreTimeout &e) {
    EXPECT_EQ(e.missing_keys(), (std::vector<std::string>{"b", "c"}));
  }
}

TEST(StoreBarrier, AllThreadRanksPass) {
  MemoryStore store;
  constexpr int kWorld = 6;
  std::vector<std::thread> ranks;
  std::atomic<int> passed{0};
  for (int r = 0; r < kWorld; ++r)
    ranks.emplace_back([&, r] {
      store_barrier(store, "start", r, kWorld, 5000ms);
      ++passed;
    });
  for (auto &t : ranks)
    t.join();
  EXPECT_EQ(passed, kWorld);
}

TEST(StoreBarrier, TimeoutNamesTheRanksThatDidNotArrive) {
  MemoryStore store;
  std::vector<std::thread> ranks;
  std::vector<std::string> errors(4);
  for (int r : {0, 2}) // ranks 1 and 3 never arrive
    ranks.emplace_back([&, r] {
      try {
        store_barrier(store, "p7", r, 4, 50ms);
      } catch (const StoreTimeout &e) {
        errors[r] = e.what();
      }
    });
  for (auto &t : ranks)
    t.join();
  EXPECT_NE(errors[0].find("ranks 1, 3 of 4 did not arrive"), std::string::npos) << errors[0];
  EXPECT_NE(errors[2].find("barrier 'p7'"), std::string::npos) << errors[2];
}

TEST(StoreAllGather, ReturnsValuesInRankOrder) {
  MemoryStore store;
  constexpr int kWorld = 4;
  std::vector<std::vector<std::string>> got(kWorld);
  std::vector<std::thread> ranks;
  for (int r = 0; r < kWorld; ++r)
    ranks.emplace_back([&, r] {
      got[r] = store_all_gather(store, "gid", r, kWorld, "v" + std::to_string(r), 5000ms);
    });
  for (auto &t : ranks)
    t.join();
  for (const auto &g : got)
    EXPECT_EQ(g, (std::vector<std::string>{"v0", "v1", "v2", "v3"}));
}

// Rank 0 packs the values into one key; values too large for one key are fetched one by one.
TEST(StoreAllGather, ValuesTooLargeToPackStillArriveInRankOrder) {
  MemoryStore store;
  constexpr int kWorld = 3;
  std::vector<std::vector<std::string>> got(kWorld);
  std::vector<std::thread> ranks;
  const auto value = [](int r) { return std::string(std::size_t{3} << 20, char('a' + r)); };
  for (int r = 0; r < kWorld; ++r)
    ranks.emplace_back(
        [&, r] { got[r] = store_all_gather(store, "big", r, kWorld, value(r), 5000ms); });
  for (auto &t : ranks)
    t.join();
  for (const auto &g : got)
    EXPECT_EQ(g, (std::vector<std::string>{value(0), value(1), value(2)}));
}

TEST(StoreAllGather, ATimeoutNamesTheRanksThatDidNotArrive) {
  MemoryStore store;
  std::string error;
  std::thread one([&] {
    try {
      store_all_gather(store, "g", 1, 3, "x", 50ms);
    } catch (const StoreTimeout &e) {
      error = e.what();
    }
  });
  one.join();
  EXPECT_NE(error.find("all-gather 'g': ranks 0, 2 of 3 did not arrive"), std::string::npos)
      << error;
}

} // namespace
} // namespace railgauge
