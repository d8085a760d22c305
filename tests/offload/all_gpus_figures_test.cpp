// offload.all_gpus_*'s record assembled from two GPUs' measured copies (write_all_gpus_figures),
// read back through the types it is written with: each GPU's object and the figures over them.
#include <gtest/gtest.h>

#include "harness/record_fields.h"
#include "offload/all_gpus_figures.h"
#include "offload/pcie_link.h"
#include "offload/placement.h"
#include "records/offload_rates.h"
#include "records/offload_record.h"

namespace railgauge::offload {
namespace {

AllGpusCopy copy_of(int gpu, double gbytes_per_s, std::optional<PcieLinkState> link) {
  AllGpusCopy c;
  c.part.gpu = gpu;
  c.part.uuid = "GPU-" + std::to_string(gpu);
  c.part.pci = "0000:1" + std::to_string(gpu) + ":00.0";
  c.part.telemetry = {{"during", {{"available", false}}}};
  c.placement = {static_cast<unsigned>(gpu), gpu, 4u * static_cast<unsigned>(gpu), "local"};
  c.placement_check = placement_check_fields(c.placement.host_numa_node,
                                             {std::vector<unsigned>{c.placement.host_numa_node}});
  c.link = pcie_link_fields(link, gbytes_per_s, 1, "no link in this test");
  c.bandwidth_gbytes_per_s = gbytes_per_s;
  return c;
}

TEST(AllGpusFigures, EachGpuObjectReadsBackAndTheSumsFollow) {
  const PcieLinkState gen5{5, 16, 5, 16, "nvml_while_running"};
  const PcieLinkState gen4{4, 16, 5, 16, "nvml_while_running"};
  const std::vector<AllGpusCopy> gpus = {copy_of(0, 50.0, gen5), copy_of(1, 25.0, gen4)};
  nlohmann::json metrics = nlohmann::json::object();
  write_all_gpus_figures(gpus, 70.0, metrics);
  metrics = nlohmann::json::parse(metrics.dump()); // as the record file holds it

  const auto &list = metrics.at(record::kPerGpu);
  ASSERT_EQ(list.size(), 2u);
  for (std::size_t d = 0; d < gpus.size(); ++d) {
    SCOPED_TRACE(d);
    const auto &object = list.at(d);
    EXPECT_EQ(records::GpuPart::read(object), gpus[d].part);
    EXPECT_EQ(record::HostPlacementFields::read(object), gpus[d].placement);
    EXPECT_EQ(record::PlacementCheckFields::read(object), gpus[d].placement_check);
    EXPECT_EQ(record::PcieLinkFields::read(object), gpus[d].link);
    EXPECT_EQ(record_fields::number(object, record::kBandwidthGbytesPerS),
              gpus[d].bandwidth_gbytes_per_s);
  }
  // The figures over the GPUs, read through the type they are written with.
  const auto rates = record::AllGpusRates::read(metrics);
  ASSERT_TRUE(rates) << metrics.dump();
  EXPECT_DOUBLE_EQ(rates->sum_of_gpus_gbytes_per_s, 75.0);
  EXPECT_EQ(rates->slowest_gpu, 1);
  EXPECT_DOUBLE_EQ(rates->slowest_gpu_share, 25.0 / 75.0);
  ASSERT_EQ(rates->shares.size(), 2u);
  EXPECT_DOUBLE_EQ(rates->shares[0], 50.0 / 75.0);
  const double expected = *pcie_expected_gbytes_per_s(5, 16) + *pcie_expected_gbytes_per_s(4, 16);
  EXPECT_DOUBLE_EQ(*rates->expected_gbytes_per_s, expected);
  EXPECT_DOUBLE_EQ(*rates->efficiency, 70.0 / expected);
}

TEST(AllGpusFigures, AGpuWithoutItsLinkLeavesTheExpectedSumUnknown) {
  const PcieLinkState gen5{5, 16, 5, 16, "nvml"};
  nlohmann::json metrics = nlohmann::json::object();
  write_all_gpus_figures({copy_of(0, 50.0, gen5), copy_of(1, 50.0, std::nullopt)}, 100.0, metrics);
  EXPECT_TRUE(metrics.at(record::kExpectedGbytesPerS).is_null());
  EXPECT_FALSE(metrics.contains(record::kEfficiency)) << "no efficiency over a partial sum";
  const auto rates = record::AllGpusRates::read(metrics);
  ASSERT_TRUE(rates);
  EXPECT_EQ(rates->expected_gbytes_per_s, std::nullopt);
  const auto link = record::PcieLinkFields::read(metrics.at(record::kPerGpu).at(1));
  ASSERT_TRUE(link);
  EXPECT_FALSE(link->source);
  EXPECT_EQ(link->unknown_reason, "no link in this test");
}

} // namespace
} // namespace railgauge::offload
