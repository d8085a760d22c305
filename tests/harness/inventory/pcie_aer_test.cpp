// A GPU's PCIe errors from Linux's AER statistics in a sysfs tree, and their growth during a
// point beside NVML's replay counter.
#include <filesystem>
#include <fstream>

#include <gtest/gtest.h>

#include "harness/inventory/gpu_telemetry.h"
#include "harness/inventory/pcie_aer.h"

namespace railgauge {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

// The files as a 6.x kernel writes them for a device (sysfs-bus-pci-devices-aer_stats).
void write_aer(const fs::path &root, const std::string &bus_id, int correctable, int nonfatal) {
  const fs::path dir = root / "bus/pci/devices" / bus_id;
  fs::create_directories(dir);
  std::ofstream(dir / "aer_dev_correctable")
      << "RxErr 0\nBadTLP " << correctable << "\nBadDLLP 0\nRollover 0\nTimeout 0\n"
      << "NonFatalErr 0\nCorrIntErr 0\nHeaderOF 0\nTOTAL_ERR_COR " << correctable << "\n";
  std::ofstream(dir / "aer_dev_nonfatal")
      << "Undefined 0\nDLP 0\nSDES 0\nTLP " << nonfatal << "\nFCP 0\nCmpltTO 0\n"
      << "TOTAL_ERR_NONFATAL " << nonfatal << "\n";
  std::ofstream(dir / "aer_dev_fatal") << "Undefined 0\nDLP 0\nTOTAL_ERR_FATAL 0\n";
}

TEST(PcieAer, CountersAreReadByTheBusIdNvmlGives) {
  const fs::path root = fs::path(::testing::TempDir()) / "aer-sysfs";
  fs::remove_all(root);
  write_aer(root, "0000:18:00.0", 3, 0);
  // NVML names the bus 00000000:18:00.0, upper case.
  const json aer = read_pcie_aer(root.string(), "00000000:18:00.0");
  ASSERT_TRUE(aer.at("available").get<bool>()) << aer.dump();
  EXPECT_EQ(aer.at("correctable").at("BadTLP"), 3);
  EXPECT_EQ(aer.at("nonfatal").at("TOTAL_ERR_NONFATAL"), 0);
  const json none = read_pcie_aer(root.string(), "0000:19:00.0");
  EXPECT_FALSE(none.at("available").get<bool>());
  EXPECT_NE(none.at("reason").get<std::string>().find("no AER statistics"), std::string::npos);
  fs::remove_all(root);
}

TEST(PcieAer, LinesOfAnotherShapeAreLeftOut) {
  EXPECT_EQ(parse_aer_counters("RxErr 2\ngarbage\nBadTLP x\nA 1 2\nTOTAL_ERR_COR 2\n"),
            (json{{"RxErr", 2}, {"TOTAL_ERR_COR", 2}}));
}

TEST(PcieAer, TheHealthDeltaHoldsTheLinksErrorsDuringThePoint) {
  const auto snapshot = [](int replays, int correctable, int nonfatal) {
    return json{{"pcie_replay_count", replays},
                {"pcie_aer",
                 {{"available", true},
                  {"correctable", {{"TOTAL_ERR_COR", correctable}}},
                  {"nonfatal", {{"TOTAL_ERR_NONFATAL", nonfatal}}},
                  {"fatal", {{"TOTAL_ERR_FATAL", 0}}}}}};
  };
  const auto d =
      telemetry_pair(snapshot(4, 1, 0), json::object(), snapshot(9, 3, 1)).at("health_delta");
  EXPECT_EQ(d.at("pcie_replays"), 5);
  EXPECT_EQ(d.at("pcie_aer_correctable"), 2);
  EXPECT_EQ(d.at("pcie_aer_uncorrectable"), 1);
  // Without AER statistics (a VM): null, never 0.
  auto vm = snapshot(4, 0, 0);
  vm["pcie_aer"] = {{"available", false}, {"reason", "no AER statistics"}};
  const auto blind = telemetry_pair(vm, json::object(), vm).at("health_delta");
  EXPECT_TRUE(blind.at("pcie_aer_uncorrectable").is_null());
  EXPECT_EQ(blind.at("pcie_replays"), 0);
}

TEST(PcieAer, TheNvlinkErrorsOfEveryCounterTogether) {
  const auto links = [](int crc, int recovery) {
    return json{
        {"nvlink_errors",
         {{"crc_flit", crc}, {"crc_data", 0}, {"replay", nullptr}, {"recovery", recovery}}}};
  };
  EXPECT_EQ(telemetry_pair(links(10, 0), json::object(), links(14, 1))
                .at("health_delta")
                .at("nvlink_errors"),
            5);
  // One GPU alone has no NVLink: null, which a rule reads as not covered.
  EXPECT_TRUE(telemetry_pair(json{{"nvlink_errors", nullptr}}, json::object(),
                             json{{"nvlink_errors", nullptr}})
                  .at("health_delta")
                  .at("nvlink_errors")
                  .is_null());
}

} // namespace
} // namespace railgauge
