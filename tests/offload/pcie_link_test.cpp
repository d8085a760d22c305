// PCIe link arithmetic: rates, encodings, TLP efficiency, downtraining and the record fields.
#include <filesystem>
#include <fstream>

#include <gtest/gtest.h>
#include <unistd.h>

#include "offload/pcie_link.h"

namespace railgauge::offload {
namespace {

TEST(PcieLink, PerDirectionRateAfterEncoding) {
  // Gen5 x16: 32 GT/s x 16 lanes x 128/130 / 8 bits = 63.015 GB/s per direction.
  EXPECT_NEAR(*pcie_link_gbytes_per_s(5, 16), 32.0 * 16 * 128 / 130 / 8, 1e-9);
  EXPECT_NEAR(*pcie_link_gbytes_per_s(5, 16), 63.015, 1e-3);
  EXPECT_NEAR(*pcie_link_gbytes_per_s(4, 16), 31.508, 1e-3);
  EXPECT_NEAR(*pcie_link_gbytes_per_s(3, 16), 15.754, 1e-3);
  EXPECT_NEAR(*pcie_link_gbytes_per_s(5, 8), 31.508, 1e-3) << "x8 halves it";
  // 8b/10b: Gen1 x1 carries 2 Gb/s of data = 0.25 GB/s; Gen2 x8 = 4 GB/s.
  EXPECT_DOUBLE_EQ(*pcie_link_gbytes_per_s(1, 1), 0.25);
  EXPECT_DOUBLE_EQ(*pcie_link_gbytes_per_s(2, 8), 4.0);
  // Gen6 flits: 64 GT/s x 16 x 236/256 / 8 = 118 GB/s.
  EXPECT_DOUBLE_EQ(*pcie_link_gbytes_per_s(6, 16), 118.0);
  EXPECT_EQ(pcie_encoding_name(2), "8b/10b");
  EXPECT_EQ(pcie_encoding_name(3), "128b/130b");
  EXPECT_EQ(pcie_encoding_name(5), "128b/130b");
  EXPECT_EQ(pcie_encoding_name(6), "flit 236/256");
}

TEST(PcieLink, UnknownGenerationOrWidthHasNoRate) {
  EXPECT_FALSE(pcie_link_gbytes_per_s(0, 16));
  EXPECT_FALSE(pcie_link_gbytes_per_s(8, 16));
  EXPECT_FALSE(pcie_link_gbytes_per_s(5, 0));
  EXPECT_FALSE(pcie_expected_gbytes_per_s(-1, 16));
}

TEST(PcieLink, ExpectedRateAppliesTlpOverhead) {
  EXPECT_DOUBLE_EQ(pcie_tlp_efficiency(5, 256), 256.0 / 280.0);
  EXPECT_DOUBLE_EQ(pcie_tlp_efficiency(5, 128), 128.0 / 152.0);
  EXPECT_DOUBLE_EQ(pcie_tlp_efficiency(6, 256), 256.0 / 272.0) << "flit mode: header only";
  EXPECT_DOUBLE_EQ(*pcie_expected_gbytes_per_s(5, 16),
                   *pcie_link_gbytes_per_s(5, 16) * 256.0 / 280.0);
  EXPECT_NEAR(*pcie_expected_gbytes_per_s(5, 16), 57.61, 0.01);
}

TEST(PcieLink, DowntrainedSaysWhatIsShort) {
  PcieLinkState link{5, 16, 5, 16, "nvml"};
  EXPECT_FALSE(pcie_downtrained_reason(link));
  link.gen_current = 4;
  EXPECT_EQ(pcie_downtrained_reason(link), "Gen4 x16 of Gen5 x16: generation");
  link = {5, 8, 5, 16, "nvml"};
  EXPECT_EQ(pcie_downtrained_reason(link), "Gen5 x8 of Gen5 x16: width");
  link = {3, 8, 5, 16, "sysfs"};
  EXPECT_EQ(pcie_downtrained_reason(link), "Gen3 x8 of Gen5 x16: generation and width");
  link.gen_max.reset();
  EXPECT_FALSE(pcie_downtrained_reason(link)) << "unknown is not downtrained";
}

TEST(PcieLink, RecordFieldsCarryExpectationAndEfficiency) {
  const PcieLinkState full{5, 16, 5, 16, "nvml"};
  const double expected = *pcie_expected_gbytes_per_s(5, 16);
  auto m = pcie_metrics(full, 50.0);
  EXPECT_EQ(m["pcie_link_source"], "nvml");
  EXPECT_EQ(m["pcie_gen"], 5);
  EXPECT_EQ(m["pcie_width"], 16);
  EXPECT_EQ(m["pcie_encoding"], "128b/130b");
  EXPECT_EQ(m["pcie_link_downtrained"], false);
  EXPECT_TRUE(m["pcie_link_downtrained_reason"].is_null());
  EXPECT_DOUBLE_EQ(m["expected_gbytes_per_s"].get<double>(), expected);
  EXPECT_DOUBLE_EQ(m["efficiency"].get<double>(), 50.0 / expected);
  EXPECT_EQ(m["pcie_max_payload_bytes_assumed"], 256);

  // Bidirectional: the sum against both directions' expectation.
  m = pcie_metrics(full, 100.0, 2);
  EXPECT_DOUBLE_EQ(m["expected_gbytes_per_s"].get<double>(), 2 * expected);
  EXPECT_DOUBLE_EQ(m["efficiency"].get<double>(), 100.0 / (2 * expected));

  // A Gen4 link: the expectation follows the link as negotiated, and the record says so.
  m = pcie_metrics(PcieLinkState{4, 16, 5, 16, "sysfs"}, 25.0);
  EXPECT_EQ(m["pcie_link_downtrained"], true);
  EXPECT_EQ(m["pcie_link_downtrained_reason"], "Gen4 x16 of Gen5 x16: generation");
  EXPECT_DOUBLE_EQ(m["expected_gbytes_per_s"].get<double>(), *pcie_expected_gbytes_per_s(4, 16));

  m = pcie_metrics(std::nullopt, 50.0, 1, "NVML missing");
  EXPECT_TRUE(m["pcie_link_source"].is_null());
  EXPECT_EQ(m["pcie_link_unknown_reason"], "NVML missing");
  EXPECT_FALSE(m.contains("efficiency"));
}

TEST(PcieLink, SysfsSpeedText) {
  EXPECT_EQ(pcie_generation_from_sysfs_speed("32.0 GT/s PCIe"), 5);
  EXPECT_EQ(pcie_generation_from_sysfs_speed("16.0 GT/s PCIe"), 4);
  EXPECT_EQ(pcie_generation_from_sysfs_speed("8.0 GT/s PCIe"), 3);
  EXPECT_EQ(pcie_generation_from_sysfs_speed("8 GT/s"), 3);
  EXPECT_EQ(pcie_generation_from_sysfs_speed("2.5 GT/s"), 1);
  EXPECT_EQ(pcie_generation_from_sysfs_speed("64.0 GT/s PCIe"), 6);
  EXPECT_FALSE(pcie_generation_from_sysfs_speed("Unknown"));
  EXPECT_FALSE(pcie_generation_from_sysfs_speed("Unknown speed"));
  EXPECT_FALSE(pcie_generation_from_sysfs_speed("3.0 GT/s"));
}

TEST(PcieLink, ReadsSysfsLinkFiles) {
  namespace fs = std::filesystem;
  const fs::path root =
      fs::temp_directory_path() / ("railgauge_pcie_sysfs_" + std::to_string(::getpid()));
  const fs::path dir = root / "bus/pci/devices/0000:18:00.0";
  fs::create_directories(dir);
  std::ofstream(dir / "current_link_speed") << "16.0 GT/s PCIe\n";
  std::ofstream(dir / "max_link_speed") << "32.0 GT/s PCIe\n";
  std::ofstream(dir / "current_link_width") << "16\n";
  std::ofstream(dir / "max_link_width") << "16\n";
  const auto link = read_sysfs_pcie_link(root.string(), "0000:18:00.0");
  ASSERT_TRUE(link);
  EXPECT_EQ(link->source, "sysfs");
  EXPECT_EQ(link->gen_current, 4);
  EXPECT_EQ(link->gen_max, 5);
  EXPECT_EQ(link->width_current, 16);
  EXPECT_EQ(link->width_max, 16);
  EXPECT_EQ(pcie_downtrained_reason(*link), "Gen4 x16 of Gen5 x16: generation");
  EXPECT_FALSE(read_sysfs_pcie_link(root.string(), "0000:99:00.0"));
  fs::remove_all(root);
}

TEST(PcieLink, ReadsNvmlInventoryEntry) {
  const auto nvml = nlohmann::json::parse(R"({"available": true, "gpus": [
      {"pci_bus_id": "0000:18:00.0", "pcie": {"gen_current": 5, "gen_max": 5,
       "width_current": 8, "width_max": 16}},
      {"pci_bus_id": "0000:29:00.0", "pcie": {"gen_current": null, "gen_max": null,
       "width_current": null, "width_max": null}}]})");
  const auto link = pcie_link_from_nvml(nvml, "0000:18:00.0");
  ASSERT_TRUE(link);
  EXPECT_EQ(link->source, "nvml");
  EXPECT_EQ(link->width_current, 8);
  EXPECT_EQ(pcie_downtrained_reason(*link), "Gen5 x8 of Gen5 x16: width");
  EXPECT_FALSE(pcie_link_from_nvml(nvml, "0000:29:00.0")) << "no fields: try sysfs";
  EXPECT_FALSE(pcie_link_from_nvml(nvml, "0000:98:00.0"));
  EXPECT_FALSE(pcie_link_from_nvml(nlohmann::json{{"available", false}}, "0000:18:00.0"));
}

TEST(PcieLink, WhileRunningTheHighestSampledLinkReplacesAnIdleSnapshot) {
  // After the point the idle GPU had dropped to Gen1; under load it ran Gen5 x16.
  PcieLinkState idle{1, 16, 5, 16, "nvml"};
  const nlohmann::json during = {
      {"available", true},
      {"pcie", {{"gen_min", 4}, {"gen_max", 5}, {"width_min", 16}, {"width_max", 16}}}};
  EXPECT_TRUE(link_sampled_while_running(during));
  const PcieLinkState ran = link_while_running(idle, during);
  EXPECT_EQ(ran.gen_current, 5);
  EXPECT_EQ(ran.width_current, 16);
  EXPECT_EQ(ran.gen_max, 5);
  EXPECT_EQ(ran.source, "nvml_while_running");
  EXPECT_FALSE(pcie_downtrained_reason(ran));
  // A link that stayed at x8 under load is still downtrained.
  const nlohmann::json narrow = {
      {"available", true},
      {"pcie", {{"gen_min", 5}, {"gen_max", 5}, {"width_min", 8}, {"width_max", 8}}}};
  EXPECT_EQ(pcie_downtrained_reason(link_while_running(idle, narrow)),
            "Gen5 x8 of Gen5 x16: width");
  // No samples: the snapshot as it was.
  for (const nlohmann::json &none :
       {nlohmann::json{{"available", false}, {"reason", "no NVML"}},
        nlohmann::json{{"available", true},
                       {"pcie", {{"gen_max", nullptr}, {"width_max", nullptr}}}},
        nlohmann::json{{"available", true}, {"pcie", "Gen5"}}, nlohmann::json(nullptr)}) {
    EXPECT_FALSE(link_sampled_while_running(none)) << none.dump();
    const PcieLinkState same = link_while_running(idle, none);
    EXPECT_EQ(same.gen_current, 1) << none.dump();
    EXPECT_EQ(same.source, "nvml");
  }
}

} // namespace
} // namespace railgauge::offload
