// The whole report: from both topology files and from this machine (with a fake sysfs and no
// NVML), checking the structure that results/schema/inventory.schema.json describes.
#include <filesystem>
#include <fstream>

#include <gtest/gtest.h>

#include "harness/error.h"
#include "harness/inventory/inventory.h"
#include "harness/inventory/pci_tree.h"
#include "tests/harness/inventory/fixtures.h"

namespace railgauge {
namespace {

void expect_common_structure(const nlohmann::json &inv) {
  EXPECT_EQ(inv["schema"], kInventorySchema);
  for (const char *key : {"host", "source", "summary", "machine", "pci", "os_devices", "rail_map",
                          "nvml", "verbs", "port_counters"})
    EXPECT_TRUE(inv.contains(key)) << key;
  for (const char *key : {"packages", "numa_nodes", "cores", "pus", "caches"})
    EXPECT_TRUE(inv["machine"].contains(key)) << key;
  for (const char *key : {"nvml", "verbs", "port_counters"}) {
    EXPECT_TRUE(inv[key]["available"].is_boolean()) << key;
    EXPECT_TRUE(inv[key]["available"].get<bool>() || inv[key]["reason"].is_string()) << key;
  }
  const auto &rm = inv["rail_map"];
  EXPECT_EQ(rm["paths"].size(), rm["gpus"].size());
  EXPECT_EQ(rm["rails"].size(), rm["gpus"].size());
  for (const auto &row : rm["paths"])
    EXPECT_EQ(row.size(), rm["nics"].size());
  EXPECT_EQ(inv["summary"]["gpus"], rm["gpus"].size());
  EXPECT_EQ(inv["summary"]["nics"], rm["nics"].size());
}

void expect_h100_rails(const nlohmann::json &inv) {
  EXPECT_EQ(inv["summary"]["gpus"], 8);
  EXPECT_EQ(inv["summary"]["nics"], 8);
  EXPECT_EQ(inv["summary"]["numa_nodes"], 2);
  const auto &rails = inv["rail_map"]["rails"];
  ASSERT_EQ(rails.size(), 8u);
  for (int i = 0; i < 8; ++i) {
    EXPECT_EQ(rails[i]["nic_name"], "mlx5_" + std::to_string(i));
    EXPECT_EQ(rails[i]["path"], "PIX");
    EXPECT_EQ(rails[i]["gpu_numa_node"], i < 4 ? 0 : 1);
  }
  EXPECT_EQ(inv["rail_map"]["paths"][0][7], "SYS");
  EXPECT_FALSE(inv["nvml"]["available"].get<bool>()); // a file is not this machine
}

TEST(Inventory, FromHwlocXml) {
  InventoryOptions options;
  options.topology_file = test::h100_hwloc_xml();
  const nlohmann::json inv = collect_inventory(options);
  expect_common_structure(inv);
  expect_h100_rails(inv);
  EXPECT_EQ(inv["source"]["kind"], "hwloc_xml");
  EXPECT_EQ(inv["host"], "h100-fixture");
  EXPECT_EQ(inv["machine"]["cores"], 112);
  EXPECT_EQ(inv["machine"]["pus"], 224);
  EXPECT_EQ(inv["machine"]["packages"][1]["cpu_model"], "Intel(R) Xeon(R) Platinum 8480C");
  EXPECT_EQ(inv["machine"]["numa_nodes"][1]["memory_bytes"], 1ull << 40);
  const auto &caches = inv["machine"]["caches"];
  ASSERT_EQ(caches.size(), 3u);
  EXPECT_EQ(caches[2]["level"], 3);
  EXPECT_EQ(caches[2]["size_bytes"], 105ull * 1024 * 1024);
  EXPECT_EQ(caches[2]["count"], 2);
  EXPECT_EQ(inv["os_devices"].size(), 32u); // cuda, nvml, mlx5, ib netdev per pair
}

TEST(Inventory, FromNcclXml) {
  InventoryOptions options;
  options.topology_file = test::h100_nccl_xml();
  const nlohmann::json inv = collect_inventory(options);
  expect_common_structure(inv);
  expect_h100_rails(inv);
  EXPECT_EQ(inv["source"]["kind"], "nccl_xml");
  EXPECT_TRUE(inv["host"].is_null());
  EXPECT_EQ(inv["machine"]["numa_nodes"][0]["cpus"], "0-55,112-167");
}

// Real NCCL topology files of three providers' 8-H100 nodes (tests/fixtures/topology/real,
// cited in its README): OCI's dump (vendors, NVLink targets), Azure's NDv5 file (no vendor, no
// <gpu>: GPUs by class), a p5.48xlarge file (no vendor, 32 EFA NICs) and AWS's own static
// p5.48xlarge file, which leaves the GPUs out and must say so.
nlohmann::json real_topology(const std::string &name) {
  InventoryOptions options;
  options.topology_file = test::fixture("topology/real/" + name);
  return collect_inventory(options);
}

TEST(Inventory, RealNcclTopologiesOfThreeProviders) {
  struct Case {
    const char *file;
    int gpus, nics, nvswitches;
  };
  for (const Case c : {Case{"oci_bm_gpu_h100_8_nccl_topo.xml", 8, 8, 4},
                       Case{"azure_ndv5_h100_nccl_topo.xml", 8, 8, 0},
                       Case{"aws_p5_48xl_h100_nccl_topo_pr1226.xml", 8, 32, 0}}) {
    SCOPED_TRACE(c.file);
    const auto inv = real_topology(c.file);
    expect_common_structure(inv);
    EXPECT_EQ(inv["summary"]["gpus"], c.gpus);
    EXPECT_EQ(inv["summary"]["nics"], c.nics);
    EXPECT_EQ(inv["summary"]["nvswitches"], c.nvswitches);
    EXPECT_EQ(inv["warnings"], nlohmann::json::array());
    const auto &rails = inv["rail_map"]["rails"];
    ASSERT_EQ(rails.size(), 8u);
    for (const auto &rail : rails) // every GPU has a NIC behind its own PCIe switch
      EXPECT_TRUE(rail["path"] == "PIX" || rail["path"] == "PXB") << rail.dump();
    // Gen5 x16: 32 GT/s x 16 lanes x 128/130 / 8 = 63.0 GB/s per direction.
    for (const auto &gpu : inv["rail_map"]["gpus"])
      EXPECT_NEAR(gpu["link_gbytes_per_s"].get<double>(), 63.015, 0.01) << gpu.dump();
  }
  // NUMA by socket: four GPUs and their NICs on each.
  const auto azure = real_topology("azure_ndv5_h100_nccl_topo.xml");
  EXPECT_EQ(azure["rail_map"]["rails"][0]["gpu_numa_node"], 0);
  EXPECT_EQ(azure["rail_map"]["rails"][7]["gpu_numa_node"], 1);
  EXPECT_EQ(azure["rail_map"]["rails"][7]["nic_bus_id"], "0108:00:00.0");
}

TEST(Inventory, ATopologyThatLeavesOutTheGpusSaysSo) {
  const auto inv = real_topology("aws_p5_48xl_static_topo_no_gpus.xml");
  EXPECT_EQ(inv["summary"]["gpus"], 0);
  ASSERT_EQ(inv["warnings"].size(), 2u);
  EXPECT_NE(inv["warnings"][0].get<std::string>().find("yields no GPU"), std::string::npos);
  EXPECT_NE(inv["warnings"][1].get<std::string>().find("yields no NIC"), std::string::npos);
  EXPECT_NE(render_inventory_text(inv).find("WARNING: "), std::string::npos);
}

TEST(Inventory, PcieLinkBandwidthPerGeneration) {
  EXPECT_NEAR(*pcie_link_gbytes_per_s(2.5, 16), 4.0, 1e-9);    // gen1: 8b/10b
  EXPECT_NEAR(*pcie_link_gbytes_per_s(8.0, 16), 15.754, 1e-3); // gen3: 128b/130b
  EXPECT_NEAR(*pcie_link_gbytes_per_s(32.0, 16), 63.015, 1e-3);
  EXPECT_NEAR(*pcie_link_gbytes_per_s(16.0, 8), 15.754, 1e-3); // an EFA NIC's gen4 x8
  EXPECT_FALSE(pcie_link_gbytes_per_s(0, 16).has_value());
  EXPECT_FALSE(pcie_link_gbytes_per_s(32.0, 0).has_value());
}

TEST(Inventory, BadTopologyFileIsAnInputError) {
  InventoryOptions options;
  options.topology_file = test::fixture("sysfs/README.md");
  EXPECT_THROW(collect_inventory(options), InputError);
}

TEST(Inventory, ThisMachineWithFakeSysfsAndNoNvml) {
  InventoryOptions options;
  options.sysfs_root = test::fake_sysfs();
  options.nvml_library = "libnvidia-ml-does-not-exist.so.1";
  const nlohmann::json inv = collect_inventory(options);
  expect_common_structure(inv);
  EXPECT_EQ(inv["source"]["kind"], "this_machine");
  EXPECT_TRUE(inv["host"].is_string());
  EXPECT_GE(inv["machine"]["pus"].get<int>(), 1);
  EXPECT_GE(inv["machine"]["numa_nodes"].size(), 1u);
  EXPECT_FALSE(inv["nvml"]["available"].get<bool>());
  const auto &ports = inv["port_counters"]["ports"];
  ASSERT_EQ(ports.size(), 2u);
  EXPECT_EQ(ports[0]["hw_counters"]["np_cnp_sent"], 1024);
}

// The machine id tells apart two machines that report one host name; a file that is absent or
// holds something other than systemd's 32 hex digits gives null, never a made-up id.
TEST(Inventory, ThisMachinesIdIsReadFromMachineIdOrNull) {
  const auto dir = std::filesystem::temp_directory_path() / "rg-machine-id-test";
  std::filesystem::create_directories(dir);
  InventoryOptions options;
  options.sysfs_root = test::fake_sysfs();
  options.query_nvml = false;
  options.query_verbs = false;
  for (const auto &[text, want] :
       {std::pair<std::string, nlohmann::json>{"0123456789abcdef0123456789abcdef\n",
                                               "0123456789abcdef0123456789abcdef"},
        {"uninitialized\n", nullptr},
        {"", nullptr}}) {
    options.machine_id_file = (dir / "machine-id").string();
    std::ofstream(options.machine_id_file) << text;
    EXPECT_EQ(collect_inventory(options)["machine_id"], want) << text;
  }
  options.machine_id_file = (dir / "absent").string();
  EXPECT_TRUE(collect_inventory(options)["machine_id"].is_null());
  std::filesystem::remove_all(dir);
}

TEST(Inventory, NotRequestedBackendsSaySo) {
  InventoryOptions options;
  options.sysfs_root = test::fake_sysfs();
  options.query_nvml = false;
  options.query_verbs = false;
  const nlohmann::json inv = collect_inventory(options);
  EXPECT_EQ(inv["nvml"]["reason"], "not requested");
  EXPECT_EQ(inv["verbs"]["reason"], "not requested");
}

TEST(Inventory, TextViewHasCaptionedTables) {
  InventoryOptions options;
  options.topology_file = test::h100_hwloc_xml();
  const std::string text = render_inventory_text(collect_inventory(options));
  EXPECT_NE(text.find("GPU(row) -> NIC(column) PCIe distance"), std::string::npos) << text;
  EXPECT_NE(text.find("Rail map (row: GPU"), std::string::npos);
  EXPECT_NE(text.find("NUMA nodes (row: NUMA node; memory in GB = 1e9 bytes"), std::string::npos);
  EXPECT_NE(text.find("Caches (row: level"), std::string::npos);
  EXPECT_NE(text.find("mlx5_7"), std::string::npos);
  EXPECT_NE(text.find("0000:cb:00.0"), std::string::npos);
}

TEST(Inventory, TextViewOfThisMachine) {
  InventoryOptions options;
  options.sysfs_root = test::fake_sysfs();
  options.nvml_library = "libnvidia-ml-does-not-exist.so.1";
  const std::string text = render_inventory_text(collect_inventory(options));
  EXPECT_NE(text.find("this machine"), std::string::npos);
  EXPECT_NE(text.find("NVML: not available"), std::string::npos);
}

} // namespace
} // namespace railgauge
