// Host DRAM benchmarks: byte accounting, the default sweep, the kernels' values, the data
// check, waivers and one whole point through a hand-built RunContext. No timing assertions.
#include <algorithm>
#include <filesystem>
#include <numeric>
#include <sched.h>
#include <vector>

#include <gtest/gtest.h>

#include "tests/support/quick_run_context.h"

#include "harness/host_buffer.h"
#include "harness/registry.h"
#include "harness/run_context.h"
#include "harness/waiver.h"
#include "memory/host_stream.h"
#include "memory/register_memory.h"

namespace railgauge::memory {
namespace {

constexpr Kernel kAllKernels[] = {Kernel::read, Kernel::write, Kernel::copy, Kernel::triad};

TEST(HostStreamBytes, CountsReadPlusWriteOncePerArray) {
  const std::uint64_t n = 1 << 20;
  EXPECT_EQ(bytes_moved_per_call(Kernel::read, n), n);
  EXPECT_EQ(bytes_moved_per_call(Kernel::write, n), n);
  EXPECT_EQ(bytes_moved_per_call(Kernel::copy, n), 2 * n);
  EXPECT_EQ(bytes_moved_per_call(Kernel::triad, n), 3 * n);
  EXPECT_EQ(arrays_used(Kernel::read), 1);
  EXPECT_EQ(arrays_used(Kernel::write), 1);
  EXPECT_EQ(arrays_used(Kernel::copy), 2);
  EXPECT_EQ(arrays_used(Kernel::triad), 3);
}

void expect_sweep_spans_caches(const Topology &topology) {
  const auto sizes = default_sizes_bytes(topology);
  ASSERT_FALSE(sizes.empty());
  std::uint64_t l1_bytes = 0;
  for (const auto &level : topology.caches())
    if (level.depth == 1 && level.type != 'i')
      l1_bytes = level.size_bytes;
  if (l1_bytes > 0) {
    EXPECT_LE(static_cast<std::uint64_t>(sizes.front()), l1_bytes);
  }
  EXPECT_LE(sizes.front(), 16 * 1024);
  EXPECT_GE(static_cast<std::uint64_t>(sizes.back()), 8 * topology.last_level_cache_bytes());
  EXPECT_GE(sizes.back(), std::int64_t{1} << 30);
  for (std::size_t i = 1; i < sizes.size(); ++i)
    EXPECT_EQ(sizes[i], 2 * sizes[i - 1]);
  EXPECT_LE(sizes.size(), 22u) << "keep the sweep short";
}

TEST(HostStreamSweep, DefaultSpansL1ToFarPastLastLevelCacheHere) {
  expect_sweep_spans_caches(Topology::load_this_machine());
}

TEST(HostStreamSweep, DefaultSpansL1ToFarPastLastLevelCacheOnFixtures) {
  int seen = 0;
  const std::filesystem::path dir = RAILGAUGE_TEST_FIXTURES;
  if (std::filesystem::is_directory(dir))
    for (const auto &entry : std::filesystem::recursive_directory_iterator(dir))
      if (entry.path().string().ends_with(".hwloc.xml")) {
        SCOPED_TRACE(entry.path().string());
        expect_sweep_spans_caches(Topology::load_xml(entry.path().string()));
        ++seen;
      }
  if (seen == 0)
    GTEST_SKIP() << "no hwloc XML fixtures in " << dir;
}

TEST(HostBufferPages, TouchedPagesAreOnTheBoundNodeOrTheReasonIsGiven) {
  const Topology topology = Topology::load_this_machine();
  hwloc_obj_t node = hwloc_get_obj_by_type(topology.get(), HWLOC_OBJ_NUMANODE, 0);
  ASSERT_NE(node, nullptr);
  HostBuffer buffer(topology.get(), node->os_index, 1 << 20);
  std::fill_n(buffer.doubles(), (1 << 20) / sizeof(double), 1.0); // first touch
  const auto where = buffer.page_nodes();
  if (const auto *why = std::get_if<std::string>(&where)) {
    // A kernel or container that refuses the query: the reason names the call.
    EXPECT_NE(why->find("hwloc_get_area_memlocation"), std::string::npos) << *why;
  } else {
    EXPECT_EQ(std::get<std::vector<unsigned>>(where), std::vector<unsigned>{node->os_index});
  }
}

TEST(HostStreamSlices, ContiguousPageAlignedAndComplete) {
  for (std::size_t elements :
       {std::size_t{1}, std::size_t{511}, std::size_t{2048}, std::size_t{100003}}) {
    for (unsigned workers : {1u, 2u, 3u, 7u}) {
      const auto slices = split_slices(elements, workers);
      ASSERT_EQ(slices.size(), workers);
      EXPECT_EQ(slices.front().first, 0u);
      EXPECT_EQ(slices.back().second, elements);
      for (std::size_t w = 0; w < workers; ++w) {
        EXPECT_LE(slices[w].first, slices[w].second);
        if (w > 0) {
          EXPECT_EQ(slices[w].first, slices[w - 1].second);
        }
        if (slices[w].first < elements) {
          EXPECT_EQ(slices[w].first % 512, 0u) << "slices start on a page";
        }
      }
    }
  }
}

struct SmallArrays {
  explicit SmallArrays(std::size_t n) : a(n), b(n), c(n) {
    view = {a.data(), b.data(), c.data(), n};
  }
  std::vector<double> a, b, c;
  StreamArrays view;
};

TEST(HostStreamKernels, ComputeExpectedValuesOnSmallArrays) {
  // Odd sizes and offsets exercise the vector loops' remainders.
  const std::size_t n = 4096 + 13;
  for (Kernel kernel : kAllKernels) {
    SmallArrays arrays(n);
    seed_slice(kernel, arrays.view, 0, n);
    const double sum = run_slice(kernel, arrays.view, 5, n);
    run_slice(kernel, arrays.view, 0, 5);
    EXPECT_EQ(count_wrong(kernel, arrays.view, 0, n), 0u);
    for (std::size_t i : {std::size_t{0}, std::size_t{7}, n - 1}) {
      switch (kernel) {
      case Kernel::read:
        EXPECT_EQ(arrays.a[i], seed_a(i));
        break;
      case Kernel::write:
        EXPECT_EQ(arrays.a[i], kScalar);
        break;
      case Kernel::copy:
      case Kernel::library_copy:
        EXPECT_EQ(arrays.c[i], arrays.a[i]);
        break;
      case Kernel::triad:
        EXPECT_EQ(arrays.a[i], arrays.b[i] + kScalar * arrays.c[i]);
        break;
      }
    }
    if (kernel == Kernel::read) {
      const double serial = std::accumulate(arrays.a.begin() + 5, arrays.a.end(), 0.0);
      EXPECT_EQ(sum, serial);
      EXPECT_EQ(sum, expected_read_sum(5, n));
    }
  }
}

TEST(HostStreamKernels, ExpectedReadSumIsExactForLargeRanges) {
  const std::size_t n = 3 * 1024 + 100;
  double serial = 0;
  for (std::size_t i = 1000; i < n; ++i)
    serial += seed_a(i);
  EXPECT_EQ(expected_read_sum(1000, n), serial);
  EXPECT_EQ(expected_read_sum(7, 7), 0.0);
}

TEST(HostStreamVerify, CatchesOneCorruptedElement) {
  const std::size_t n = 2048;
  for (Kernel kernel : kAllKernels) {
    SmallArrays arrays(n);
    seed_slice(kernel, arrays.view, 0, n);
    run_slice(kernel, arrays.view, 0, n);
    ASSERT_EQ(count_wrong(kernel, arrays.view, 0, n), 0u);
    double *out = kernel == Kernel::copy ? arrays.c.data() : arrays.a.data();
    out[1234] += 0.25;
    EXPECT_EQ(count_wrong(kernel, arrays.view, 0, n), 1u) << static_cast<int>(kernel);
  }
}

TEST(HostStreamVerify, CatchesAKernelThatDidNotRun) {
  const std::size_t n = 2048;
  for (Kernel kernel : {Kernel::write, Kernel::copy, Kernel::triad}) {
    SmallArrays arrays(n);
    seed_slice(kernel, arrays.view, 0, n);
    EXPECT_GT(count_wrong(kernel, arrays.view, 0, n), n / 2);
  }
}

TEST(PinnedWorkers, EveryMemberRunsOnceOnItsProcessingUnit) {
  const Topology topology = Topology::load_this_machine();
  const auto pus = topology.numa_nodes().front().core_pus;
  PinnedWorkers team(topology.get(), pus);
  const auto bound = team.bind_caller();
  std::vector<int> cpu(pus.size(), -1), calls(pus.size(), 0);
  for (int round = 0; round < 100; ++round)
    team.run([&](unsigned m) {
      cpu[m] = sched_getcpu();
      ++calls[m];
    });
  for (std::size_t m = 0; m < pus.size(); ++m) {
    EXPECT_EQ(calls[m], 100) << m;
    EXPECT_EQ(cpu[m], static_cast<int>(pus[m])) << m;
  }
}

// A RunContext on this machine with a short measurement, as the runner builds one.
class HostStreamPoint : public testing::QuickRunContextTest {
protected:
  Point point(std::int64_t size_bytes, std::int64_t threads = 0, std::int64_t numa_node = -1) {
    Point p;
    p.set("numa_node", numa_node >= 0
                           ? numa_node
                           : static_cast<std::int64_t>(topology_.numa_nodes().front().os_index));
    p.set("threads", threads);
    p.set("size_bytes", size_bytes);
    return p;
  }
};

TEST_F(HostStreamPoint, EveryKernelRunsVerifiedWithPositiveBandwidth) {
  for (auto make : {make_host_read, make_host_write, make_host_copy, make_host_triad}) {
    auto bench = make();
    SCOPED_TRACE(std::string(bench->key()));
    for (std::int64_t threads : {0, 1}) {
      const Outcome out = bench->run(ctx_, point(1 << 20, threads));
      ASSERT_EQ(out.status, Status::ok) << out.reason.value_or("");
      EXPECT_GT(out.metrics.at("bandwidth_gbytes_per_s").get<double>(), 0);
      EXPECT_GE(out.metrics.at("bandwidth_max_gbytes_per_s").get<double>(),
                out.metrics.at("bandwidth_gbytes_per_s").get<double>());
      EXPECT_TRUE(out.metrics.at("verified").get<bool>());
      EXPECT_EQ(out.metrics.at("wrong_elements").get<std::size_t>(), 0u);
      EXPECT_TRUE(out.metrics.contains("time_s"));
      EXPECT_EQ(out.metrics.at("timer"), "host_steady_clock");
      EXPECT_EQ(out.device.at("numa"), topology_.numa_nodes().front().os_index);
      const auto expect_threads =
          threads > 0 ? std::size_t(threads) : topology_.numa_nodes().front().core_pus.size();
      EXPECT_EQ(out.derived_params.at("threads_used").get<std::size_t>(), expect_threads);
      EXPECT_EQ(out.derived_params.at("total_bytes").get<std::int64_t>(),
                (1 << 20) * arrays_used(bench->key() == "memory.host_read"    ? Kernel::read
                                        : bench->key() == "memory.host_write" ? Kernel::write
                                        : bench->key() == "memory.host_copy"  ? Kernel::copy
                                                                              : Kernel::triad));
    }
  }
}

TEST_F(HostStreamPoint, CacheSizedArraysTakeSeveralPassesPerCall) {
  // 16 KiB read: 64 MiB per call / 16 KiB per pass = 4096 passes; the bytes count them all.
  const Outcome small = make_host_read()->run(ctx_, point(16 * 1024, 1));
  ASSERT_EQ(small.status, Status::ok) << small.reason.value_or("");
  EXPECT_EQ(small.derived_params.at("passes_per_call"), 4096);
  EXPECT_EQ(small.metrics.at("bytes_per_call"), std::uint64_t{64} << 20);
  // 64 MiB triad moves 192 MiB per pass: one pass.
  const Outcome big = make_host_triad()->run(ctx_, point(64 << 20, 1));
  ASSERT_EQ(big.status, Status::ok) << big.reason.value_or("");
  EXPECT_EQ(big.derived_params.at("passes_per_call"), 1);
  EXPECT_EQ(big.metrics.at("bytes_per_call"), std::uint64_t{3} * (64 << 20));
}

TEST_F(HostStreamPoint, CorruptedArrayFailsThePoint) {
  auto bench = make_host_copy();
  bench->set_before_verify([](const StreamArrays &arrays) { arrays.c[42] = -1; });
  const Outcome out = bench->run(ctx_, point(64 * 1024));
  EXPECT_EQ(out.status, Status::failed);
  ASSERT_TRUE(out.reason);
  EXPECT_NE(out.reason->find("1 of 8192 elements"), std::string::npos) << *out.reason;
  EXPECT_EQ(out.metrics.at("wrong_elements"), 1);
  EXPECT_FALSE(out.metrics.at("verified").get<bool>());
}

TEST_F(HostStreamPoint, WrongReadSumFailsThePoint) {
  auto bench = make_host_read();
  bench->set_before_verify([](const StreamArrays &arrays) { arrays.a[0] = 1e6; });
  const Outcome out = bench->run(ctx_, point(64 * 1024));
  EXPECT_EQ(out.status, Status::failed);
  EXPECT_EQ(out.metrics.at("wrong_elements"), 1);
}

TEST_F(HostStreamPoint, VerifyOffLeavesVerifiedFalse) {
  ctx_.set_verify(false);
  const Outcome out = make_host_triad()->run(ctx_, point(64 * 1024));
  EXPECT_EQ(out.status, Status::ok);
  EXPECT_FALSE(out.metrics.at("verified").get<bool>());
}

TEST_F(HostStreamPoint, WaivesWhatCannotRunHere) {
  auto bench = make_host_triad();
  EXPECT_FALSE(bench->supported(ctx_, point(1 << 20)));
  const auto no_node = bench->supported(ctx_, point(1 << 20, 0, 9999));
  ASSERT_TRUE(no_node);
  EXPECT_NE(no_node->find("does not exist"), std::string::npos) << *no_node;
  const auto too_many = bench->supported(ctx_, point(1 << 20, 100000));
  ASSERT_TRUE(too_many);
  EXPECT_NE(too_many->find("physical cores"), std::string::npos) << *too_many;
  EXPECT_TRUE(bench->supported(ctx_, point(1 << 20, -1)));
  EXPECT_TRUE(bench->supported(ctx_, point(12)));
  const auto too_big = bench->supported(ctx_, point(std::int64_t{1} << 50));
  ASSERT_TRUE(too_big);
  EXPECT_NE(too_big->find("NUMA node"), std::string::npos) << *too_big;
  // Arrays larger than the node's memory are no fault of the node: a profile that reads host
  // memory does not count them as missing (harness/waiver.h).
  EXPECT_TRUE(is_not_applicable(*too_big)) << *too_big;
  EXPECT_FALSE(is_not_applicable(*too_many)) << *too_many;
  // run() turns the same reason into a waived outcome.
  const Outcome out = bench->run(ctx_, point(1 << 20, 0, 9999));
  EXPECT_EQ(out.status, Status::waived);
  EXPECT_EQ(out.reason, no_node);
}

TEST_F(HostStreamPoint, DefaultsCoverEveryNumaNodeAndTheSweep) {
  auto bench = make_host_read();
  for (const auto &axis : bench->axes()) {
    EXPECT_FALSE(axis.help.empty()) << axis.name;
    const auto values = bench->defaults_here(axis, ctx_);
    if (axis.name == "numa_node") {
      EXPECT_EQ(values.size(), topology_.numa_nodes().size());
    }
    if (axis.name == "size_bytes") {
      EXPECT_EQ(axis.type, AxisType::bytes);
      EXPECT_EQ(values.size(), default_sizes_bytes(topology_).size());
    }
    if (axis.name == "threads") {
      EXPECT_EQ(std::get<std::int64_t>(values.at(0)), 0);
    }
  }
}

TEST(HostStreamRegistry, RegistersTheFourKeys) {
  Registry registry;
  register_memory(registry);
  for (const char *key :
       {"memory.host_read", "memory.host_write", "memory.host_copy", "memory.host_triad"})
    EXPECT_NE(registry.find(key), nullptr) << key;
}

} // namespace
} // namespace railgauge::memory
