// The typed views of the record contracts (<family>/<family>_record.h), through which analysis
// reads records: on records written with the contracts' names, on the importers' output of real
// published logs (tests/fixtures/verdicts/real, see its README), and on fields of the wrong type.
#include <fstream>
#include <sstream>

#include <gtest/gtest.h>

#include "analysis/import/nccl_tests_import.h"
#include "analysis/import/perftest_import.h"
#include "records/block_record.h"
#include "records/collective_record.h"
#include "records/gemm_record.h"
#include "records/memory_point.h"
#include "records/memory_record.h"
#include "records/offload_record.h"
#include "records/rdma_record.h"
#include "tests/support/fixture_text.h"

namespace railgauge {
namespace {

std::string real_log(const std::string &name) {
  return testing::fixture_text("verdicts/real/" + name);
}

Record record(const std::string &key, nlohmann::json params, nlohmann::json metrics) {
  Record r;
  r.key = key;
  r.params = std::move(params);
  r.metrics = std::move(metrics);
  return r;
}

const nlohmann::json kTime = {{"median", 2e-3}, {"p10", 1.5e-3}, {"p90", 3e-3}};

// Each view reads its own family only.
TEST(RecordViews, EachViewReadsItsFamilyOnly) {
  const Record memory = record(memory::record::kHostTriad, {}, {});
  const Record offload = record(offload::record::kH2d, {}, {});
  const Record rdma = record(rdma::record::kSendLat, {}, {});
  const Record collective =
      record(collectives::record::keys_of(collectives::Kind::all_gather).mpi, {}, {});
  const Record gemm = record(gemm::record::kCpuBlas, {}, {});
  for (const Record *r : {&offload, &rdma, &collective, &gemm})
    EXPECT_FALSE(memory::record::MemoryPoint::read(*r)) << r->key;
  for (const Record *r : {&memory, &rdma, &collective, &gemm})
    EXPECT_FALSE(offload::record::offload_point_view(*r)) << r->key;
  for (const Record *r : {&memory, &offload, &collective, &gemm})
    EXPECT_FALSE(rdma::record::pair_point_view(*r)) << r->key;
  for (const Record *r : {&memory, &offload, &rdma, &gemm})
    EXPECT_FALSE(collectives::record::collective_point_view(*r)) << r->key;
  for (const Record *r : {&memory, &offload, &rdma, &collective})
    EXPECT_FALSE(gemm::record::gemm_call_view(*r)) << r->key;
  EXPECT_TRUE(memory::record::MemoryPoint::read(memory));
  EXPECT_TRUE(offload::record::offload_point_view(offload));
  EXPECT_TRUE(rdma::record::pair_point_view(rdma));
  EXPECT_TRUE(collectives::record::collective_point_view(collective));
  EXPECT_TRUE(gemm::record::gemm_call_view(gemm));
  // A key that only begins like the family's
  EXPECT_FALSE(memory::record::MemoryPoint::read(record("memoryless.host_triad", {}, {})));
}

TEST(RecordViews, MemoryPoint) {
  namespace m = memory::record;
  const auto v = m::MemoryPoint::read(record(
      m::kHostTriad, {{m::kSizeBytes, 1 << 20}, {m::kThreadsUsed, 2}, {m::kPassesPerCall, 4}},
      {{metric::kTimeS, kTime}, {m::kBytesPerCall, 4.0e6}, {m::kBandwidthGbytesPerS, 2.0}}));
  ASSERT_TRUE(v);
  EXPECT_EQ(v->tier, "host");
  EXPECT_EQ(v->kind, "triad");
  EXPECT_EQ(v->size_bytes, 1 << 20);
  EXPECT_EQ(v->threads_used, 2);
  EXPECT_EQ(v->passes_per_call, 4);
  EXPECT_EQ(v->passes(), 4);
  EXPECT_EQ(v->bytes_per_call, 4.0e6);
  EXPECT_EQ(v->time_s, 2e-3);
  EXPECT_EQ(v->bandwidth_gbytes_per_s, 2.0);
  EXPECT_EQ(m::MemoryPoint::read(record(m::kHbmCopy, {}, {}))->tier, "hbm");
  // Analysis divides by the passes: a record without them, or with 0, counts one
  EXPECT_EQ(m::MemoryPoint::read(record(m::kHostCopy, {}, {}))->passes(), 1);
  EXPECT_EQ(m::MemoryPoint::read(record(m::kHostCopy, {{m::kPassesPerCall, 0}}, {}))->passes(), 1);
  // Neither tier
  EXPECT_FALSE(m::MemoryPoint::read(record("memory.l2_copy", {}, {})));
}

TEST(RecordViews, OffloadPointDefaultsAsTheFamilyWrites) {
  namespace o = offload::record;
  const auto bare = o::offload_point_view(record(o::kD2h, {}, {}));
  ASSERT_TRUE(bare);
  EXPECT_EQ(bare->path, "d2h");
  EXPECT_EQ(bare->host_memory, "pinned");
  EXPECT_EQ(bare->placement, "near");
  nlohmann::json metrics = {{metric::kTimeS, 1e-3}};
  o::WithGemmFigures{4096, 50.0, 40.0, 700.0, 560.0, 1.25, 1.25}.write(metrics);
  const auto v = o::offload_point_view(record(
      o::kWithGemm, {{o::kHostMemory, "pageable"}, {o::kGpu, 3}, {o::kSizeBytes, 4096}}, metrics));
  ASSERT_TRUE(v);
  EXPECT_EQ(v->host_memory, "pageable");
  EXPECT_EQ(v->gpu, 3);
  EXPECT_EQ(v->time_s, 1e-3); // a plain number, as an importer writes one figure
  EXPECT_EQ(v->gemm_slowdown, 1.25);
  // A record written before bytes_per_copy was (2026-11-23) holds the slowdown without every
  // figure the type reads: the slowdown is still read, as older runs are read field by field.
  const nlohmann::json older = {{metric::kTimeS, 1e-3}, {o::kGemmSlowdown, 1.5}};
  EXPECT_EQ(o::offload_point_view(record(o::kWithGemm, {}, older))->gemm_slowdown, 1.5);
}

TEST(RecordViews, FieldsOfTheWrongTypeReadAsAbsent) {
  namespace o = offload::record;
  const auto v = o::offload_point_view(
      record(o::kH2d, {{o::kSizeBytes, "4096"}, {o::kGpu, nullptr}, {o::kHostMemory, 7}},
             {{metric::kTimeS, "fast"}, {o::kBandwidthGbytesPerS, nlohmann::json::array()}}));
  ASSERT_TRUE(v);
  EXPECT_FALSE(v->size_bytes);
  EXPECT_FALSE(v->gpu);
  EXPECT_EQ(v->host_memory, "pinned");
  EXPECT_FALSE(v->time_s);
  EXPECT_FALSE(v->bandwidth_gbytes_per_s);
  // params or metrics that are not objects at all
  const auto none = o::offload_point_view(record(o::kH2d, nullptr, 5));
  ASSERT_TRUE(none);
  EXPECT_FALSE(none->size_bytes);
  EXPECT_FALSE(none->time_s);
}

TEST(RecordViews, CollectivePointAndTextbookKeys) {
  namespace c = collectives::record;
  const auto &keys = c::keys_of(collectives::Kind::reduce_scatter);
  const auto v =
      c::collective_point_view(record(keys.mpi,
                                      {{c::kSizeBytes, 1 << 16},
                                       {c::kGroups, "tp=2+dp=rest"},
                                       {c::kGroupType, "tp"},
                                       {c::kGroupIndex, 1},
                                       {c::kGroupSize, 2},
                                       {c::kWorldSize, 4},
                                       {c::kGroupHosts, 1}},
                                      {{metric::kTimeS, kTime}, {c::kBusbwGbytesPerS, 12.5}}));
  ASSERT_TRUE(v);
  EXPECT_EQ(v->size_bytes, 1 << 16);
  EXPECT_EQ(v->groups, "tp=2+dp=rest");
  EXPECT_EQ(v->group_type, "tp");
  EXPECT_EQ(v->group_index, 1);
  EXPECT_EQ(v->group_size, 2);
  EXPECT_EQ(v->world_size, 4);
  EXPECT_EQ(v->group_hosts, 1);
  EXPECT_EQ(v->time_s, 2e-3);
  EXPECT_EQ(v->busbw_gbytes_per_s, 12.5);
  EXPECT_FALSE(v->textbook());
  EXPECT_TRUE(c::collective_point_view(record(keys.mpi_textbook, {}, {}))->textbook());
  EXPECT_TRUE(
      c::collective_point_view(record(keys.mpi, {{c::kAlgorithm, "ring"}}, {}))->textbook());
}

TEST(RecordViews, GemmCall) {
  namespace g = gemm::record;
  const auto v = g::gemm_call_view(
      record(g::kCpuBlas,
             {{g::kDtype, "fp32"},
              {g::kM, 64},
              {g::kN, 128},
              {g::kK, 256},
              {g::kBatch, 2},
              {g::kTp, 2},
              {g::kOp, "scores.dgrad"},
              {g::kGemmCount, 2},
              {g::kPeakTflops, 0.5}},
             {{metric::kTimeS, kTime}, {g::kFlopsPerCall, 8.0e6}, {g::kBytesPerCall, 1.0e5}}));
  ASSERT_TRUE(v);
  EXPECT_EQ(v->m * v->n * v->k * v->batch, 64 * 128 * 256 * 2);
  EXPECT_EQ(v->tp, 2);
  EXPECT_EQ(v->gemm_count, 2);
  EXPECT_EQ(v->peak_tflops, 0.5);
  EXPECT_EQ(v->flops_per_call, 8.0e6);
  EXPECT_EQ(v->time_s, 2e-3);
}

TEST(RecordViews, BlockPointAndItsPhases) {
  namespace b = block::record;
  const nlohmann::json phases = {{{b::kPhaseName, "qkv.fwd"},
                                  {b::kPhaseKind, b::kGemmPhase},
                                  {b::kPhaseOp, "qkv.fwd"},
                                  {b::kPhaseM, 4},
                                  {b::kPhaseN, 8},
                                  {b::kPhaseK, 16},
                                  {b::kPhaseTimeS, 1e-4}},
                                 {{b::kPhaseName, "attn.ar"},
                                  {b::kPhaseKind, b::kCollectivePhase},
                                  {b::kPhaseOp, "all_reduce"},
                                  {b::kPhaseSizeBytes, 2048},
                                  {b::kPhaseTimeS, 2e-5}}};
  const auto v = b::block_point_view(record(b::kTransformerTp,
                                            {{b::kModel, "custom"},
                                             {b::kTp, 2},
                                             {b::kSequenceParallel, 1},
                                             {b::kBlasThreads, 1},
                                             {b::kRanksPerHost, 2},
                                             {b::kHidden, 512}},
                                            {{metric::kTimeS, kTime},
                                             {b::kGemmTimeS, 1e-3},
                                             {b::kCollectiveTimeS, 5e-4},
                                             {b::kPhases, phases}}));
  ASSERT_TRUE(v);
  EXPECT_EQ(v->model, "custom");
  EXPECT_EQ(v->tp, 2);
  EXPECT_TRUE(v->sequence_parallel);
  EXPECT_EQ(v->ranks_per_host, 2);
  EXPECT_EQ(v->hidden, 512);
  EXPECT_EQ(v->time_s, 2e-3);
  EXPECT_EQ(v->time_p10_s, 1.5e-3);
  EXPECT_EQ(v->time_p90_s, 3e-3);
  ASSERT_TRUE(v->phases);
  ASSERT_EQ(v->phases->size(), 2u);
  EXPECT_EQ((*v->phases)[0].flops(), 2.0 * 4 * 8 * 16);
  EXPECT_EQ((*v->phases)[1].op, "all_reduce");
  EXPECT_EQ((*v->phases)[1].size_bytes, 2048);
  EXPECT_FALSE(b::block_point_view(record(b::kTransformerTp, {}, {}))->phases);
  EXPECT_FALSE(b::block_point_view(record(gemm::record::kCpuBlas, {}, {})));
}

// A real 2-node HDR InfiniBand all_reduce log (nccl-tests text: a wall-clock mean per size, no
// distribution): the view's time is that mean, and every row is read.
TEST(RecordViews, CollectiveViewOfARealNcclTestsLog) {
  const auto imported = importers::import_nccl_tests(
      real_log("thomaslie_a100pcie_2node_hdr_ib_all_reduce_gdr_on.txt"), "log", std::nullopt, "run",
      "host");
  int read = 0;
  for (const Record &r : imported.records) {
    if (r.status != Status::ok)
      continue;
    const auto v = collectives::record::collective_point_view(r);
    ASSERT_TRUE(v) << r.key;
    EXPECT_EQ(v->source, collectives::record::kSourceNcclTests);
    EXPECT_EQ(v->time_s, r.metrics.at(collectives::record::kWallTimeS).get<double>());
    EXPECT_EQ(v->size_bytes, r.params.at(collectives::record::kSizeBytes).get<double>());
    EXPECT_EQ(v->busbw_gbytes_per_s,
              r.metrics.at(collectives::record::kBusbwGbytesPerS).get<double>());
    EXPECT_FALSE(v->textbook());
    ++read;
  }
  EXPECT_GT(read, 10);
}

// Real perftest output from an H100 RoCE cluster: ib_read_lat (the latency summary in µs becomes
// seconds; its first size, 2 B) and ib_write_bw over 16 QPs (230.9 Gb/s at 8 MiB in the log).
TEST(RecordViews, PairViewOfRealPerftestOutput) {
  const auto lat = importers::import_perftest(
      real_log("moc_oc_h100_roce_ib_read_lat_gpumem_client_healthy.log"), "lat.log");
  ASSERT_FALSE(lat.empty());
  const auto l = rdma::record::pair_point_view(lat[0]);
  ASSERT_TRUE(l);
  EXPECT_EQ(l->verb, "read");
  EXPECT_TRUE(l->latency);
  ASSERT_TRUE(l->latency_s);
  ASSERT_TRUE(l->latency_s->p50_s);
  EXPECT_GT(*l->latency_s->p50_s, 1e-6); // a few µs on a real NIC
  EXPECT_LT(*l->latency_s->p50_s, 1e-4);
  EXPECT_LE(*l->latency_s->p50_s, l->latency_s->max_s.value_or(0));
  const auto bw = importers::import_perftest(
      real_log("moc_bm_roce_cx7_ib_write_bw_hostmem_16qp_client.log"), "bw.log");
  ASSERT_FALSE(bw.empty());
  const auto b = rdma::record::pair_point_view(bw.back()); // 8 MiB, the largest size
  ASSERT_TRUE(b);
  EXPECT_EQ(b->size_bytes, 8 << 20);
  EXPECT_EQ(b->verb, "write");
  EXPECT_FALSE(b->latency);
  EXPECT_NEAR(b->bandwidth_gbits_per_s.value_or(0), 230.91, 0.01);
}

} // namespace
} // namespace railgauge
