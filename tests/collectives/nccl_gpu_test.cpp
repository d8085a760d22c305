// NCCL collectives on the GPUs of this machine, one process driving all of them (label gpu):
// every kind's data is right in and out of place (in-place alltoall and sendrecv waived), a group
// split runs on the split communicators with the group's size, the device reduction matches the
// host's, the NCCL transport moves bytes, and every textbook algorithm is verified beside NCCL's
// own collective (on two or more GPUs; on one, the waiver is checked), and the seeded fill and
// data check run on the GPUs agree with the host's, past 2^32 elements and in a 4 GiB point. Fails,
// never skips, without a GPU.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <iostream>
#include <random>
#include <stdexcept>
#include <thread>

#include <gtest/gtest.h>
#include <nccl.h>

#include "tests/support/device_upload.h"
#include "tests/support/quick_run_context.h"

#include "collectives/data_regions.h"
#include "collectives/dtype.h"
#include "collectives/nccl/device_data_check.h"
#include "collectives/nccl/device_reduce.h"
#include "collectives/nccl/nccl_collective.h"
#include "collectives/nccl/nccl_session.h"
#include "collectives/nccl/nccl_transport.h"
#include "collectives/nccl/seeded_data_kernels.h"
#include "collectives/textbook.h"
#include "harness/cuda/device.h"
#include "harness/cuda/resources.h"
#include "records/bus_bandwidth.h"

namespace railgauge::collectives {
namespace {

// Every axis at its default, then the given overrides.
Point point_of(const Benchmark &bench, const std::vector<std::pair<std::string, AxisValue>> &set) {
  Point p;
  for (const auto &a : bench.axes()) {
    bool overridden = false;
    for (const auto &[name, value] : set)
      overridden = overridden || name == a.name;
    if (!overridden)
      p.set(a.name, a.defaults.front());
  }
  for (const auto &[name, value] : set)
    p.set(name, value);
  return p;
}

class NcclOnGpus : public testing::QuickRunContextTest {
protected:
  void SetUp() override {
    const auto why = gpu::cuda_unavailable_reason();
    ASSERT_FALSE(why.has_value()) << "these tests need a CUDA GPU: " << *why;
    gpus_ = gpu::cuda_device_count();
  }
  int gpus_ = 0;
};

TEST_F(NcclOnGpus, EveryKindIsVerifiedInAndOutOfPlace) {
  for (const Kind kind : all_kinds()) {
    auto bench = make_nccl_collective(kind);
    for (const char *placement : {"out_of_place", "in_place"}) {
      const Point p = point_of(
          *bench, {{"size_bytes", std::int64_t{1} << 20}, {"in_place", std::string(placement)}});
      SCOPED_TRACE(std::string(bench->key()) + " " + p.label());
      // In place, alltoall and sendrecv have no defined result: waived, not checked.
      const bool undefined = placement == std::string("in_place") &&
                             (kind == Kind::alltoall || kind == Kind::sendrecv);
      if (const auto why = bench->supported(ctx_, p)) {
        if (!undefined)
          ADD_FAILURE() << "waived: " << *why;
        continue;
      }
      EXPECT_FALSE(undefined) << "an undefined in-place point ran";
      const Outcome out = bench->run(ctx_, p);
      ASSERT_EQ(out.status, Status::ok) << out.reason.value_or("");
      EXPECT_TRUE(out.metrics.at("verified").get<bool>());
      // busbw is algbw times nccl-tests' bus factor, which is 0 on one rank for the kinds that
      // move nothing between ranks there (all_reduce, all_gather, reduce_scatter, alltoall).
      const double algbw = out.metrics.at("algbw_gbytes_per_s").get<double>();
      EXPECT_GT(algbw, 0);
      EXPECT_DOUBLE_EQ(out.metrics.at("busbw_gbytes_per_s").get<double>(),
                       algbw * bus_factor(kind, gpus_));
      EXPECT_EQ(out.derived_params.at("group_type"), "world");
      EXPECT_EQ(out.derived_params.at("group_size"), gpus_);
    }
  }
}

// cuda_graph=on: the session captures one iteration per GPU and replays it; the replayed data is
// checked, and the record carries the total over ranks (none wrong). One process driving several
// GPUs may deadlock in cudaGraphLaunch, so there the point is waived, naming the launcher needed.
TEST_F(NcclOnGpus, CudaGraphReplayIsVerified) {
  auto bench = make_nccl_collective(Kind::all_reduce);
  const Point p =
      point_of(*bench, {{"size_bytes", std::int64_t{1} << 20}, {"cuda_graph", std::string("on")}});
  if (gpus_ > 1) {
    const auto why = bench->supported(ctx_, p);
    ASSERT_TRUE(why.has_value()) << "cuda_graph=on ran with one process driving " << gpus_
                                 << " GPUs";
    EXPECT_NE(why->find("one process per GPU"), std::string::npos) << *why;
    return;
  }
  ASSERT_FALSE(bench->supported(ctx_, p).has_value());
  const Outcome out = bench->run(ctx_, p);
  ASSERT_EQ(out.status, Status::ok) << out.reason.value_or("");
  EXPECT_TRUE(out.metrics.at("verified").get<bool>());
  EXPECT_EQ(out.metrics.at("wrong_elements"), 0);
  EXPECT_EQ(out.metrics.at("wrong_element_ranks"), nlohmann::json::array());
}

// buffers=nccl_mem_alloc: every kind on buffers from ncclMemAlloc, as nccl-tests allocates them,
// verified; alltoall out of place names the call it made (ncclAlltoAll from NCCL 2.28).
TEST_F(NcclOnGpus, NcclMemAllocBuffersAreVerified) {
  for (const Kind kind : all_kinds()) {
    auto bench = make_nccl_collective(kind);
    const Point p = point_of(*bench, {{"size_bytes", std::int64_t{1} << 20},
                                      {"buffers", std::string("nccl_mem_alloc")}});
    SCOPED_TRACE(std::string(bench->key()));
    ASSERT_FALSE(bench->supported(ctx_, p).has_value());
    const Outcome out = bench->run(ctx_, p);
    ASSERT_EQ(out.status, Status::ok) << out.reason.value_or("");
    EXPECT_TRUE(out.metrics.at("verified").get<bool>());
    if (kind == Kind::alltoall) {
      int version = 0;
      ASSERT_EQ(ncclGetVersion(&version), ncclSuccess);
      EXPECT_EQ(out.derived_params.at("alltoall_call"),
                version >= NCCL_VERSION(2, 28, 0) ? "ncclAlltoAll" : "grouped ncclSend/ncclRecv");
    }
  }
}

TEST_F(NcclOnGpus, GroupSplitsRunOnTheGroupsCommunicators) {
  auto bench = make_nccl_collective(Kind::all_reduce);
  // tp=1: every GPU its own tensor group; dp: all of them.
  for (const auto &[type, size] : {std::pair{"tp", 1}, std::pair{"dp", gpus_}}) {
    const Point p = point_of(*bench, {{"size_bytes", std::int64_t{1} << 20},
                                      {"groups", std::string("tp=1+dp=rest")},
                                      {"group_type", std::string(type)}});
    SCOPED_TRACE(p.label());
    ASSERT_FALSE(bench->supported(ctx_, p).has_value()) << *bench->supported(ctx_, p);
    const Outcome out = bench->run(ctx_, p);
    ASSERT_EQ(out.status, Status::ok) << out.reason.value_or("");
    EXPECT_TRUE(out.metrics.at("verified").get<bool>());
    EXPECT_EQ(out.derived_params.at("group_type"), type);
    EXPECT_EQ(out.derived_params.at("group_size"), size);
    EXPECT_EQ(out.derived_params.at("world_size"), gpus_);
  }
  // Both types at once, each on its own stream and communicators: every type's data checked, and
  // each type's own time and busbw, within the iteration's.
  const Point concurrent = point_of(*bench, {{"size_bytes", std::int64_t{1} << 20},
                                             {"groups", std::string("tp=1+dp=rest")},
                                             {"group_type", std::string("concurrent")}});
  ASSERT_FALSE(bench->supported(ctx_, concurrent).has_value())
      << *bench->supported(ctx_, concurrent);
  const Outcome out = bench->run(ctx_, concurrent);
  ASSERT_EQ(out.status, Status::ok) << out.reason.value_or("");
  EXPECT_TRUE(out.metrics.at("verified").get<bool>());
  EXPECT_EQ(out.derived_params.at("group_type"), "concurrent");
  const auto &by_type = out.metrics.at("by_group_type");
  EXPECT_EQ(by_type.at("tp").at("group_size"), 1);
  EXPECT_EQ(by_type.at("dp").at("group_size"), gpus_);
  for (const char *t : {"tp", "dp"}) {
    EXPECT_GT(by_type.at(t).at("time_s").at("median").get<double>(), 0) << t;
    EXPECT_LE(by_type.at(t).at("time_s").at("median").get<double>(),
              out.metrics.at("time_s").at("max").get<double>() * 1.0001)
        << t;
  }
  // Graph capture takes one stream per GPU: a concurrent point is waived with it.
  Point graph = concurrent;
  graph.set("cuda_graph", std::string("on"));
  EXPECT_TRUE(bench->supported(ctx_, graph).has_value());
}

// The all_reduce beside a GEMM, on this machine's GPUs (a single-rank communicator on one GPU):
// both data checks pass, the window is balanced, and neither operation runs faster beside the
// other than alone, up to timing noise.
TEST_F(NcclOnGpus, AllReduceWithGemmIsVerifiedAndSlowsNothingDown) {
  auto bench = make_nccl_all_reduce_with_gemm();
  const Point p = point_of(*bench, {{"size_bytes", std::int64_t{16} << 20},
                                    {"gemm_mnk", std::int64_t{2048}},
                                    {"iterations", std::int64_t{10}}});
  ASSERT_FALSE(bench->supported(ctx_, p).has_value()) << *bench->supported(ctx_, p);
  const Outcome out = bench->run(ctx_, p);
  ASSERT_EQ(out.status, Status::ok) << out.reason.value_or("");
  const auto &m = out.metrics;
  EXPECT_TRUE(m.at("verified").get<bool>());
  EXPECT_EQ(m.at("wrong_elements"), 0);
  EXPECT_EQ(m.at("gemm_wrong_samples"), 0);
  EXPECT_EQ(m.at("gate_timeouts"), 0);
  EXPECT_GE(m.at("gemm_slowdown").get<double>(), 0.9);
  EXPECT_GE(m.at("collective_slowdown").get<double>(), 0.9);
  EXPECT_GT(m.at("gemm_alone_tflops").get<double>(), 0);
  EXPECT_GE(m.at("gemms_per_window").get<int>(), 1);
  EXPECT_GE(m.at("allreduces_per_window").get<int>(), 1);
  EXPECT_EQ(std::min(m.at("gemms_per_window").get<int>(), m.at("allreduces_per_window").get<int>()),
            1)
      << "one of the longer operation per window";
  EXPECT_EQ(out.derived_params.at("group_size"), gpus_);
}

// Inputs that make rounding, overflow and ties matter: fractions that 16-bit floats round,
// the fp16 overflow boundary (65504, 65519, 65520), float overflow, subnormals, +0 against -0,
// int32 wrap-around; then seeded values in [-1000, 1000) with fractions.
std::vector<double> hard_values(DType type, std::size_t count, std::uint64_t seed) {
  std::vector<double> v;
  if (type == DType::i32)
    v = {2147483647.0, -2147483648.0, -1, 0, 65536, 46341, -46341};
  else
    v = {0.0,    -0.0,    1.0 / 3, 0.1,      65504, 65519, 65520,
         3.0e38, -3.0e38, 1.0e-7,  -1.0e-40, 2.5,   -2.5,  1.0009765625};
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> any(-1000, 1000);
  while (v.size() < count)
    v.push_back(type == DType::i32 ? std::floor(any(rng) * 2e6) : any(rng));
  v.resize(count);
  return v;
}

// Runs check(type, op) for every element type and reduction operation, each traced.
template <class Check> void for_every_type_and_op(Check &&check) {
  for (auto type : {DType::f32, DType::f64, DType::i32, DType::bf16, DType::f16})
    for (auto op : {RedOp::sum, RedOp::prod, RedOp::max, RedOp::min}) {
      SCOPED_TRACE(std::string(to_string(type)) + " " + std::string(to_string(op)));
      check(type, op);
    }
}

TEST_F(NcclOnGpus, DeviceReductionMatchesTheHostReductionBitForBit) {
  const std::size_t count = 100'003; // not a multiple of the block size
  for_every_type_and_op([&](DType type, RedOp op) {
    const std::size_t bytes = count * element_bytes(type);
    std::vector<std::byte> acc(bytes), in(bytes), from_gpu(bytes);
    const auto a = hard_values(type, count, 1), b = hard_values(type, count, 2);
    // b reversed, so that every hard value meets every kind of partner.
    for (std::size_t i = 0; i < count; ++i) {
      store_value(type, a[i], acc.data(), i);
      store_value(type, b[count - 1 - i], in.data(), i);
    }
    gpu::DeviceBuffer dacc(bytes), din(bytes);
    ASSERT_EQ(testing::upload_and_wait(dacc.get(), acc.data(), bytes), cudaSuccess);
    ASSERT_EQ(testing::upload_and_wait(din.get(), in.data(), bytes), cudaSuccess);
    enqueue_device_reduce(type, op, dacc.get(), din.get(), count, nullptr);
    ASSERT_EQ(cudaMemcpy(from_gpu.data(), dacc.get(), bytes, cudaMemcpyDeviceToHost), cudaSuccess);
    reduce_into(type, op, acc.data(), in.data(), count);
    EXPECT_EQ(from_gpu, acc);
  });
}

// The GPU's seeded fill writes, bit for bit, what the host's fill_input writes, for every type
// and operation.
TEST_F(NcclOnGpus, DeviceFillEqualsTheHostFillBitForBit) {
  const std::size_t count = 100'003; // not a multiple of the block size
  for_every_type_and_op([&](DType type, RedOp op) {
    const std::size_t bytes = count * element_bytes(type);
    std::vector<std::byte> host(bytes), from_gpu(bytes);
    fill_input(type, op, 9, 1, 3, 5, host.data(), count);
    gpu::DeviceBuffer d(bytes);
    enqueue_seeded_fill(type, op, 9, 1, 3, 5, d.get(), count, nullptr);
    ASSERT_EQ(cudaMemcpy(from_gpu.data(), d.get(), bytes, cudaMemcpyDeviceToHost), cudaSuccess);
    EXPECT_EQ(from_gpu, host);
  });
}

// The GPU check of every output pattern passes a buffer of the host's expected values and finds
// one element changed, at the index the host check would report.
TEST_F(NcclOnGpus, DeviceCheckAgreesWithTheHostCheckOnEveryPattern) {
  const std::uint64_t count = 1000;
  const int world = 4;
  for (auto type : {DType::f32, DType::f64, DType::i32, DType::bf16, DType::f16})
    for (auto pattern : {OutputPattern::reduced, OutputPattern::from_rank, OutputPattern::gathered,
                         OutputPattern::alltoall}) {
      SCOPED_TRACE(std::string(to_string(type)) + " pattern " +
                   std::to_string(static_cast<int>(pattern)));
      const bool blocks = pattern == OutputPattern::gathered || pattern == OutputPattern::alltoall;
      OutputRegion region{{pattern, type, RedOp::sum, 77, world, 2, count, blocks ? 0 : count,
                           blocks ? count * world : count},
                          3};
      const std::size_t elt = element_bytes(type);
      std::vector<std::byte> host((region.offset_elements + region.expect.elements) * elt);
      for (std::uint64_t j = 0; j < region.expect.elements; ++j)
        store_value(type, expected_value(region.expect, j), host.data(),
                    static_cast<std::size_t>(region.offset_elements + j));
      const std::uint64_t bad = region.expect.elements - 7;
      gpu::DeviceBuffer d(host.size());
      for (const bool corrupt : {false, true}) {
        if (corrupt)
          store_value(type, expected_value(region.expect, bad) + 1, host.data(),
                      static_cast<std::size_t>(region.offset_elements + bad));
        ASSERT_EQ(testing::upload_and_wait(d.get(), host.data(), host.size()), cudaSuccess);
        DeviceDataCheck check;
        check.enqueue(0, nullptr, d.get(), region);
        ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
        const auto on_gpu = check.results().at(0);
        const auto on_host = check_on_host(host.data(), region);
        EXPECT_EQ(on_gpu.wrong, on_host.wrong);
        EXPECT_EQ(on_gpu.checked, on_host.checked);
        EXPECT_EQ(on_gpu.first_wrong_index, on_host.first_wrong_index);
        EXPECT_EQ(on_gpu.first_got, on_host.first_got);
        EXPECT_EQ(on_gpu.first_expected, on_host.first_expected);
        EXPECT_EQ(on_gpu.wrong_indices, on_host.wrong_indices);
      }
    }
}

// Past 2^32 elements (8 GiB of bf16): the check counts one element corrupted on purpose near the
// end and one near the start, names the lowest, and keeps both indices.
TEST_F(NcclOnGpus, DeviceCheckCountsCorruptedElementsPastFourBillion) {
  const std::uint64_t elements = (std::uint64_t{1} << 32) + 5;
  const OutputRegion region{
      {OutputPattern::from_rank, DType::bf16, RedOp::sum, 5, 1, 0, 0, 0, elements}, 0};
  gpu::DeviceBuffer d(elements * 2);
  enqueue_seeded_fill(DType::bf16, RedOp::sum, 5, 0, 1, 0, d.get(), elements, nullptr);
  const auto run_check = [&] {
    DeviceDataCheck check;
    check.enqueue(0, nullptr, d.get(), region);
    EXPECT_EQ(cudaDeviceSynchronize(), cudaSuccess);
    return check.results().at(0);
  };
  const auto clean = run_check();
  EXPECT_EQ(clean.wrong, 0u) << clean.describe("the buffer");
  EXPECT_EQ(clean.checked, elements);
  const std::uint64_t far = elements - 2, near = 7;
  for (const std::uint64_t at : {far, near}) {
    std::byte nan[2];
    store_value(DType::bf16, std::nan(""), nan, 0);
    ASSERT_EQ(testing::upload_and_wait(static_cast<std::byte *>(d.get()) + at * 2, nan, 2),
              cudaSuccess);
  }
  const auto corrupted = run_check();
  EXPECT_EQ(corrupted.wrong, 2u);
  EXPECT_EQ(corrupted.first_wrong_index, near);
  EXPECT_TRUE(std::isnan(corrupted.first_got));
  EXPECT_EQ(corrupted.first_expected, seeded_input(DType::bf16, RedOp::sum, 5, 0, 1, near));
  EXPECT_EQ(corrupted.wrong_indices, (std::vector<std::uint64_t>{near, far}));
}

// A large point, filled and checked on the GPUs: verified, end to end within the budget a burn-in
// gives a point (30 s for 16 GiB on one GPU; this one is 4 GiB, so that a 40 GiB GPU runs it).
TEST_F(NcclOnGpus, LargeAllReducePointIsVerifiedWithinSeconds) {
  auto bench = make_nccl_collective(Kind::all_reduce);
  const Point p = point_of(*bench, {{"size_bytes", std::int64_t{4} << 30},
                                    {"iterations", std::int64_t{3}},
                                    {"warmup", std::int64_t{1}}});
  ASSERT_FALSE(bench->supported(ctx_, p).has_value()) << *bench->supported(ctx_, p);
  const auto start = std::chrono::steady_clock::now();
  const Outcome out = bench->run(ctx_, p);
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  ASSERT_EQ(out.status, Status::ok) << out.reason.value_or("");
  EXPECT_TRUE(out.metrics.at("verified").get<bool>());
  EXPECT_EQ(out.metrics.at("wrong_elements"), 0);
  EXPECT_LT(seconds, 30) << "a 4 GiB point, data check included";
  std::cout << "4 GiB all_reduce point on " << gpus_ << " GPU(s): " << seconds << " s end to end\n";
}

TEST_F(NcclOnGpus, TransportSendsToItselfAndCopiesOnOneGpu) {
  NcclSession session(std::vector<int>{0});
  const std::size_t bytes = 1 << 20;
  NcclTransport t(session.comm(0), 0, 1, 0, session.stream(0), bytes);
  std::vector<std::byte> host(bytes), back(bytes);
  for (std::size_t i = 0; i < bytes; ++i)
    host[i] = static_cast<std::byte>(i * 131 + 7);
  gpu::DeviceBuffer a(bytes), b(bytes);
  auto staging = t.scratch(bytes);
  ASSERT_EQ(testing::upload_and_wait(a.get(), host.data(), bytes), cudaSuccess);
  t.sendrecv(0, static_cast<const std::byte *>(a.get()), bytes, 0, staging->data(), bytes);
  t.copy(static_cast<std::byte *>(b.get()), staging->data(), bytes);
  session.wait("self send/recv", 60);
  ASSERT_EQ(cudaMemcpy(back.data(), b.get(), bytes, cudaMemcpyDeviceToHost), cudaSuccess);
  EXPECT_EQ(back, host);
  auto second = t.scratch(bytes);
  EXPECT_THROW(t.scratch(1), std::logic_error) << "two staging regions, both in use";
}

// Staging regions are reachable by a peer GPU of the same process (NCCL's direct P2P path
// reads and writes them): two GPUs swap 1 MiB from staging to staging.
TEST_F(NcclOnGpus, TwoGpusExchangeBetweenStagingRegions) {
  if (gpus_ < 2)
    GTEST_SKIP() << "needs 2 GPUs; this machine has " << gpus_;
  NcclSession session(std::vector<int>{0, 1});
  const std::size_t bytes = 1 << 20;
  std::vector<std::unique_ptr<NcclTransport>> t;
  std::vector<std::unique_ptr<Transport::Scratch>> out, in;
  for (int d = 0; d < 2; ++d) {
    t.push_back(
        std::make_unique<NcclTransport>(session.comm(d), d, 2, d, session.stream(d), bytes));
    out.push_back(t[d]->scratch(bytes));
    in.push_back(t[d]->scratch(bytes));
    std::vector<std::byte> pattern(bytes, static_cast<std::byte>(0x10 + d));
    gpu::DeviceGuard guard(d);
    ASSERT_EQ(testing::upload_and_wait(out[d]->data(), pattern.data(), bytes), cudaSuccess);
  }
  std::vector<std::thread> threads;
  for (int d = 0; d < 2; ++d)
    threads.emplace_back(
        [&, d] { t[d]->sendrecv(1 - d, out[d]->data(), bytes, 1 - d, in[d]->data(), bytes); });
  for (auto &th : threads)
    th.join();
  session.wait("staging exchange", 60);
  for (int d = 0; d < 2; ++d) {
    std::vector<std::byte> got(bytes);
    gpu::DeviceGuard guard(d);
    ASSERT_EQ(cudaMemcpy(got.data(), in[d]->data(), bytes, cudaMemcpyDeviceToHost), cudaSuccess);
    EXPECT_EQ(got, std::vector<std::byte>(bytes, static_cast<std::byte>(0x10 + (1 - d))));
  }
}

TEST_F(NcclOnGpus, TextbookAlgorithmsAreVerifiedBesideNccl) {
  // 840 * 256 bytes: whole blocks of every dtype for 1 to 8 GPUs, so that odd GPU counts run
  // the algorithms' non-power-of-two steps instead of being waived.
  const std::int64_t size_bytes = 840 * 256;
  const std::vector<std::pair<std::string, std::string>> types = {
      {"float32", "sum"}, {"int32", "prod"}, {"bf16", "max"}, {"fp16", "sum"}};
  for (const Kind kind : {Kind::all_reduce, Kind::all_gather, Kind::reduce_scatter}) {
    auto bench = make_nccl_textbook(kind);
    for (const auto algorithm : algorithms_for(kind))
      for (const auto &[dtype, op] : types) {
        std::vector<std::pair<std::string, AxisValue>> set = {
            {"size_bytes", size_bytes},
            {"dtype", dtype},
            {"algorithm", std::string(to_string(algorithm))}};
        if (kind != Kind::all_gather)
          set.emplace_back("op", op);
        const Point p = point_of(*bench, set);
        SCOPED_TRACE(std::string(bench->key()) + " " + p.label());
        const auto why = bench->supported(ctx_, p);
        if (gpus_ < 2) {
          ASSERT_TRUE(why.has_value());
          EXPECT_NE(why->find(">= 2 GPUs"), std::string::npos) << *why;
          continue;
        }
        ASSERT_FALSE(why.has_value()) << *why;
        const Outcome out = bench->run(ctx_, p);
        ASSERT_EQ(out.status, Status::ok) << out.reason.value_or("");
        EXPECT_TRUE(out.metrics.at("verified").get<bool>());
        EXPECT_GT(out.metrics.at("time_ratio_to_library").get<double>(), 0);
        EXPECT_GT(out.metrics.at("library").at("busbw_gbytes_per_s").get<double>(), 0);
      }
  }
}

} // namespace
} // namespace railgauge::collectives
