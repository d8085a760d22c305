// The offload family's record fields written and read through their types
// (records/pcie_link_fields.h, records/offload_placement.h, records/with_gemm_figures.h): each
// round trip, each real writer's output read back, and a committed H200 record read through them.
// A name changed in write() but not in read() fails here.
#include <fstream>
#include <string>

#include <gtest/gtest.h>

#include "offload/pcie_link.h"
#include "offload/placement.h"
#include "records/offload_rates.h"
#include "records/offload_record.h"
#include "records/with_gemm_figures.h"
#include "tests/support/reference_records.h"

namespace railgauge::offload {
namespace {

using record::HostPlacementFields;
using record::PcieLinkFields;
using record::PlacementCheckFields;
using Found = std::vector<std::variant<std::vector<unsigned>, std::string>>;

template <typename T> std::optional<T> round_trip(const T &fields) {
  nlohmann::json j = nlohmann::json::object();
  fields.write(j);
  return T::read(nlohmann::json::parse(j.dump())); // as a record file holds it
}

TEST(OffloadRecordFields, PcieLinkRoundTrips) {
  PcieLinkFields full;
  full.source = "nvml_while_running";
  full.gen = 4;
  full.width = 16;
  full.gen_max = 5;
  full.width_max = 16;
  full.downtrained = true;
  full.downtrained_reason = "Gen4 x16 of Gen5 x16: generation";
  full.rates = PcieLinkFields::Rates{"128b/130b", 31.5, 28.8, 256};
  full.efficiency = 0.9;
  EXPECT_EQ(round_trip(full), full);

  PcieLinkFields unknown_generation = full;
  unknown_generation.rates = PcieLinkFields::Rates{"unknown", std::nullopt, std::nullopt, 256};
  unknown_generation.efficiency.reset();
  EXPECT_EQ(round_trip(unknown_generation), unknown_generation);

  PcieLinkFields none;
  none.unknown_reason = "neither NVML nor sysfs gave the link";
  EXPECT_EQ(round_trip(none), none);
  EXPECT_FALSE(PcieLinkFields::read(nlohmann::json::object())) << "no link fields at all";
}

TEST(OffloadRecordFields, PcieMetricsReadBackAsComputed) {
  const PcieLinkState gen4{4, 16, 5, 16, "sysfs"};
  for (const auto &[link, directions] :
       {std::pair{std::optional(gen4), 1}, std::pair{std::optional(gen4), 2},
        std::pair{std::optional(PcieLinkState{std::nullopt, 16, 5, 16, "nvml"}), 1},
        std::pair{std::optional<PcieLinkState>(), 1}}) {
    const auto read = PcieLinkFields::read(pcie_metrics(link, 25.0, directions, "NVML missing"));
    ASSERT_TRUE(read);
    EXPECT_EQ(*read, pcie_link_fields(link, 25.0, directions, "NVML missing"));
  }
  const auto read = PcieLinkFields::read(pcie_metrics(gen4, 25.0, 2));
  ASSERT_TRUE(read && read->rates && read->rates->expected_gbytes_per_s && read->efficiency);
  EXPECT_EQ(read->source, "sysfs");
  EXPECT_TRUE(read->downtrained);
  EXPECT_DOUBLE_EQ(*read->rates->expected_gbytes_per_s, 2 * *pcie_expected_gbytes_per_s(4, 16));
  EXPECT_DOUBLE_EQ(*read->efficiency, 25.0 / (2 * *pcie_expected_gbytes_per_s(4, 16)));
}

TEST(OffloadRecordFields, PlacementRoundTripsAndReadsBackFromItsWriters) {
  const HostPlacementFields chosen{1, 0, 57,
                                   "a NUMA node on another package than the GPU's node 0"};
  EXPECT_EQ(round_trip(chosen), chosen);
  EXPECT_EQ(round_trip(HostPlacementFields{0, -1, 3, "the only NUMA node"})->gpu_numa_node, -1);
  EXPECT_FALSE(HostPlacementFields::read(nlohmann::json::object()));

  // The placement chosen on the 8-GPU node's topology, as add_placement writes it.
  const Topology topology = Topology::load_xml(std::string(RAILGAUGE_TEST_FIXTURES) +
                                               "/topology/h100_8gpu_8nic.hwloc.xml");
  const auto far = choose_host_placement(topology, "0000:18:00.0", Placement::far);
  ASSERT_TRUE(std::holds_alternative<HostPlacement>(far));
  const auto &where = std::get<HostPlacement>(far);
  nlohmann::json params = nlohmann::json::object();
  placement_fields(where).write(params);
  const auto read = HostPlacementFields::read(params);
  ASSERT_TRUE(read);
  EXPECT_EQ(read->host_numa_node, 1u);
  EXPECT_EQ(read->gpu_numa_node, 0);
  EXPECT_EQ(read->cpu_pu, where.pu);
  EXPECT_EQ(read->how, where.how);

  for (const Found &found :
       {Found{std::vector<unsigned>{1}, std::vector<unsigned>{1}},
        Found{std::vector<unsigned>{0}, std::vector<unsigned>{1}},
        Found{std::vector<unsigned>{0}, std::string("move_pages: EPERM")}, Found{}}) {
    const auto check = PlacementCheckFields::read(placement_check(1, found));
    ASSERT_TRUE(check);
    EXPECT_EQ(*check, placement_check_fields(1, found));
    EXPECT_EQ(round_trip(*check), check);
  }
  const auto ignored =
      PlacementCheckFields::read(placement_check(1, Found{std::vector<unsigned>{0, 1}}));
  EXPECT_EQ(ignored->host_numa_nodes_measured, (std::vector<unsigned>{0, 1}));
  EXPECT_EQ(ignored->honoured, false);
  EXPECT_FALSE(PlacementCheckFields::read(nlohmann::json::object()));
}

TEST(OffloadRecordFields, WithGemmFiguresRoundTrip) {
  const record::WithGemmFigures figures{1 << 30, 55.0, 41.0, 700.0, 610.0, 1.34, 1.15};
  EXPECT_EQ(round_trip(figures), figures);
  nlohmann::json metrics = nlohmann::json::object();
  figures.write(metrics);
  EXPECT_EQ(record_fields::number(metrics, record::kBandwidthGbytesPerS), 41.0)
      << "the point's headline is the copy beside the GEMM";
  metrics.erase(record::kGemmSlowdown);
  EXPECT_FALSE(record::WithGemmFigures::read(metrics));
}

// offload.all_gpus_h2d of the H200 burn-in (results/reference/h200-burnin-2026-11-27), its one
// GPU's object read through the types: a Gen5 x16 link read while the copy ran, the buffer on
// the GPU's own node.
TEST(OffloadRecordFields, ReadsACommittedH200Record) {
  std::ifstream in(std::string(RAILGAUGE_SOURCE_DIR) +
                   "/results/reference/h200-burnin-2026-11-27/burnin/healthy/"
                   "2026-11-27T19-32-50Z-vm-598/records.jsonl");
  ASSERT_TRUE(in);
  nlohmann::json gpu;
  for (std::string line; std::getline(in, line);) {
    const auto r = nlohmann::json::parse(line);
    if (r.value("key", "") == record::kAllGpusH2d && r.at("metrics").contains(record::kPerGpu))
      gpu = r.at("metrics").at(record::kPerGpu).at(0);
  }
  ASSERT_TRUE(gpu.is_object()) << "no offload.all_gpus_h2d with per_gpu in the reference run";
  const auto link = PcieLinkFields::read(gpu);
  ASSERT_TRUE(link && link->rates && link->rates->expected_gbytes_per_s && link->efficiency);
  EXPECT_EQ(link->source, "nvml_while_running");
  EXPECT_EQ(link->gen, 5);
  EXPECT_EQ(link->width, 16);
  EXPECT_FALSE(link->downtrained);
  EXPECT_EQ(link->rates->encoding, "128b/130b");
  EXPECT_NEAR(*link->rates->expected_gbytes_per_s, *pcie_expected_gbytes_per_s(5, 16), 1e-9);
  EXPECT_NEAR(*link->efficiency, 0.9628, 1e-4);
  const auto placement = HostPlacementFields::read(gpu);
  ASSERT_TRUE(placement);
  EXPECT_EQ(placement->host_numa_node, 0u);
  EXPECT_EQ(placement->how, "the GPU's local NUMA node");
  const auto check = PlacementCheckFields::read(gpu);
  ASSERT_TRUE(check);
  EXPECT_EQ(check->honoured, true);
  EXPECT_EQ(check->host_numa_nodes_measured, (std::vector<unsigned>{0}));
}

// The fields each type owns, by their contract names: what a record holds of them must come back.
const std::vector<const char *> kLinkNames = {record::kPcieLinkSource,
                                              record::kPcieLinkUnknownReason,
                                              record::kPcieGen,
                                              record::kPcieWidth,
                                              record::kPcieGenMax,
                                              record::kPcieWidthMax,
                                              record::kPcieEncoding,
                                              record::kPcieLinkGbytesPerS,
                                              record::kPcieMaxPayloadBytesAssumed,
                                              record::kPcieLinkDowntrained,
                                              record::kPcieLinkDowntrainedReason,
                                              record::kExpectedGbytesPerS,
                                              record::kEfficiency};
const std::vector<const char *> kPlacementNames = {record::kHostNumaNode, record::kGpuNumaNode,
                                                   record::kCpuPu, record::kPlacementHow};
const std::vector<const char *> kCheckNames = {
    record::kHostNumaNodesMeasured, record::kPlacementHonoured, record::kHostNumaNodeUnknownReason};
const std::vector<const char *> kWithGemmNames = {
    record::kBandwidthGbytesPerS,      record::kBytesPerCopy, record::kCopyAloneGbytesPerS,
    record::kCopyConcurrentGbytesPerS, record::kCopySlowdown, record::kGemmAloneTflops,
    record::kGemmConcurrentTflops,     record::kGemmSlowdown};

// Re-written through its type, a committed record's fields come out as the run wrote them: each
// field the type writes holds the run's value, and none of its fields the run wrote is dropped
// (a field read() lost would be missing from write() too, and pass the first half alone).
template <typename T>
void expect_rewritten(const nlohmann::json &object, const std::string &what,
                      const std::vector<const char *> &names) {
  const auto fields = T::read(object);
  ASSERT_TRUE(fields) << what;
  nlohmann::json rewritten = nlohmann::json::object();
  fields->write(rewritten);
  for (const auto &[name, value] : rewritten.items())
    EXPECT_EQ(value, object.value(name, nlohmann::json("absent"))) << what << ": " << name;
  for (const char *name : names)
    if (object.contains(name))
      EXPECT_TRUE(rewritten.contains(name)) << what << ": " << name << " dropped";
}

// Every point of the committed H200 offload run (results/reference/h200-2026-11-26b), each
// one-GPU record's and each all_gpus GPU object's link and placement, and with_gemm's figures.
TEST(OffloadRecordFields, EveryCommittedH200OffloadPointRewritesAsWritten) {
  std::ifstream in(std::string(RAILGAUGE_SOURCE_DIR) +
                   "/results/reference/h200-2026-11-26b/runs/"
                   "offload/2026-11-26T04-33-10Z-vm/records.jsonl");
  ASSERT_TRUE(in);
  int objects = 0;
  for (std::string line; std::getline(in, line);) {
    const auto r = nlohmann::json::parse(line);
    const std::string key = r.at("key");
    const auto &metrics = r.at("metrics");
    if (key == record::kAllGpusH2d || key == record::kAllGpusD2h) {
      for (const auto &gpu : metrics.at(record::kPerGpu)) {
        expect_rewritten<PcieLinkFields>(gpu, key, kLinkNames);
        expect_rewritten<HostPlacementFields>(gpu, key, kPlacementNames);
        expect_rewritten<PlacementCheckFields>(gpu, key, kCheckNames);
        ++objects;
      }
      continue;
    }
    expect_rewritten<PcieLinkFields>(metrics, key, kLinkNames);
    expect_rewritten<HostPlacementFields>(r.at("params"), key, kPlacementNames);
    expect_rewritten<PlacementCheckFields>(metrics, key, kCheckNames);
    if (key == record::kWithGemm)
      expect_rewritten<record::WithGemmFigures>(metrics, key, kWithGemmNames);
    ++objects;
  }
  EXPECT_EQ(objects, 99) << "the run's 99 points, each of one GPU";
}

// offload.bidir's figures as the run computes them (offload_run.cpp): each direction against half
// the link's expected rate, which is both directions'.
TEST(OffloadRecordFields, BidirectionalRatesOfTwoDirections) {
  const auto r = record::BidirectionalRates::of(50.0, 40.0, 120.0);
  EXPECT_EQ(r.sum_gbytes_per_s, 90.0);
  EXPECT_DOUBLE_EQ(*r.h2d_efficiency, 50.0 / 60.0);
  EXPECT_DOUBLE_EQ(*r.d2h_efficiency, 40.0 / 60.0);
  const auto unknown = record::BidirectionalRates::of(50.0, 40.0, std::nullopt);
  EXPECT_FALSE(unknown.h2d_efficiency) << "no efficiency without the link's rate";
  nlohmann::json metrics = nlohmann::json::object();
  r.write(metrics);
  EXPECT_EQ(record::BidirectionalRates::read(nlohmann::json::parse(metrics.dump())), r);
  metrics = nlohmann::json::object();
  unknown.write(metrics);
  EXPECT_FALSE(metrics.contains(record::kH2dEfficiency));
  EXPECT_EQ(record::BidirectionalRates::read(metrics), unknown);
  EXPECT_FALSE(record::BidirectionalRates::read({{record::kH2dGbytesPerS, 50.0}}));
}

const std::vector<const char *> kBidirNames = {record::kH2dGbytesPerS, record::kD2hGbytesPerS,
                                               record::kSumGbytesPerS, record::kH2dEfficiency,
                                               record::kD2hEfficiency};
const std::vector<const char *> kAllGpusNames = {record::kSumOfGpusGbytesPerS, record::kSlowestGpu,
                                                 record::kSlowestGpuShare,
                                                 record::kExpectedGbytesPerS, record::kEfficiency};

// offload.bidir's directions and offload.all_gpus_*'s figures over the GPUs (records/
// offload_rates.h) in every committed run, re-written as recorded: each record's JSON text, with
// the names the type owns taken out and written back, is the same.
TEST(OffloadRecordFields, EveryCommittedOffloadRateRewritesAsWritten) {
  int bidir = 0, all_gpus = 0, shares = 0;
  for (const auto &[file, r] : testing::reference_records()) {
    if (r.status != Status::ok)
      continue;
    const std::string what = file + " " + r.key;
    nlohmann::json rewritten = r.metrics;
    if (r.key == record::kBidir) {
      const auto rates = record::BidirectionalRates::read(rewritten);
      ASSERT_TRUE(rates) << what;
      for (const char *name : kBidirNames)
        rewritten.erase(name);
      rates->write(rewritten);
      ++bidir;
    } else if (r.key == record::kAllGpusH2d || r.key == record::kAllGpusD2h) {
      const auto rates = record::AllGpusRates::read(rewritten);
      ASSERT_TRUE(rates) << what;
      for (const char *name : kAllGpusNames)
        rewritten.erase(name);
      rates->write(rewritten);
      auto &list = rewritten.at(record::kPerGpu);
      for (std::size_t d = 0; d < list.size(); ++d, ++shares) {
        list[d].erase(record::kPerGpuShare);
        rates->write_share(d, list[d]);
      }
      ++all_gpus;
    } else {
      continue;
    }
    EXPECT_EQ(rewritten.dump(), r.metrics.dump()) << what;
  }
  // Counted, so that a record the types no longer read is seen.
  EXPECT_EQ(bidir, 21);
  EXPECT_EQ(all_gpus, 56);
  EXPECT_GE(shares, all_gpus);
}

} // namespace
} // namespace railgauge::offload
