#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "harness/error.h"
#include "harness/inventory/pci_tree.h"
#include "tests/harness/inventory/fixtures.h"

namespace railgauge {
namespace {

std::string read_text(const std::string &path) {
  std::ifstream in(path);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

// A scratch file removed at the end of the test.
class TempFile {
public:
  explicit TempFile(const std::string &text)
      : path_(std::filesystem::temp_directory_path() /
              ("railgauge_inventory_" +
               std::to_string(::testing::UnitTest::GetInstance()->random_seed()) + "_" +
               ::testing::UnitTest::GetInstance()->current_test_info()->name() + ".xml")) {
    std::ofstream(path_) << text;
  }
  ~TempFile() { std::filesystem::remove(path_); }
  std::string path() const { return path_.string(); }

private:
  std::filesystem::path path_;
};

TEST(PciTree, ClassifiesByClassAndVendor) {
  EXPECT_EQ(classify_pci(0x0302, 0x10de, false), PciKind::gpu);
  EXPECT_EQ(classify_pci(0x0300, 0x10de, false), PciKind::gpu);
  EXPECT_EQ(classify_pci(0x0300, 0x1a03, false), PciKind::other); // a BMC's VGA is no GPU
  // No vendor (Azure's NDv5 NCCL file): a 3D controller is a GPU, as NCCL takes it; VGA is not.
  EXPECT_EQ(classify_pci(0x0302, 0x0000, false), PciKind::gpu);
  EXPECT_EQ(classify_pci(0x0300, 0x0000, false), PciKind::other);
  EXPECT_EQ(classify_pci(0x0207, 0x15b3, false), PciKind::nic);
  EXPECT_EQ(classify_pci(0x0200, 0x15b3, false), PciKind::nic);
  EXPECT_EQ(classify_pci(0x0680, 0x10de, false), PciKind::nvswitch);
  EXPECT_EQ(classify_pci(0x0604, 0x1000, false), PciKind::bridge);
  EXPECT_EQ(classify_pci(0x0108, 0x144d, false), PciKind::other);
}

TEST(PciTree, NormalizesBusIds) {
  EXPECT_EQ(normalize_bus_id("00000000:1B:00.0"), "0000:1b:00.0");
  EXPECT_EQ(normalize_bus_id("0000:18:00.0"), "0000:18:00.0");
  EXPECT_EQ(normalize_bus_id("0000:[15-25]"), "0000:[15-25]");
}

TEST(PciTree, FromHwlocXmlOfH100Node) {
  const Topology topology = Topology::load_xml(test::h100_hwloc_xml());
  const PciTree tree = pci_tree_from_hwloc(topology);
  EXPECT_EQ(tree.source, "hwloc");
  EXPECT_FALSE(tree.switches_collapsed);
  const auto gpus = tree.of_kind(PciKind::gpu);
  const auto nics = tree.of_kind(PciKind::nic);
  ASSERT_EQ(gpus.size(), 8u);
  ASSERT_EQ(nics.size(), 8u);
  EXPECT_EQ(tree.of_kind(PciKind::host_bridge).size(), 8u);
  EXPECT_EQ(tree.of_kind(PciKind::bridge).size(), 32u); // root port + 3 switch ports, x8

  const PciDevice &gpu0 = tree.devices[static_cast<std::size_t>(gpus[0])];
  EXPECT_EQ(gpu0.bus_id, "0000:18:00.0");
  EXPECT_EQ(gpu0.vendor_id, 0x10de);
  EXPECT_EQ(gpu0.device_id, 0x2330);
  EXPECT_EQ(gpu0.numa_node, 0);
  EXPECT_EQ(gpu0.os_names, (std::vector<std::string>{"cuda0", "nvml0"}));
  ASSERT_TRUE(gpu0.link_gbytes_per_s.has_value());
  EXPECT_NEAR(*gpu0.link_gbytes_per_s, 63.0, 0.1); // Gen5 x16 after 128b/130b
  for (int i = 0; i < 8; ++i) {
    const PciDevice &gpu =
        tree.devices[static_cast<std::size_t>(gpus[static_cast<std::size_t>(i)])];
    const PciDevice &nic =
        tree.devices[static_cast<std::size_t>(nics[static_cast<std::size_t>(i)])];
    EXPECT_EQ(gpu.numa_node, i < 4 ? 0 : 1) << gpu.bus_id;
    EXPECT_EQ(nic.numa_node, i < 4 ? 0 : 1) << nic.bus_id;
    EXPECT_NE(std::find(nic.os_names.begin(), nic.os_names.end(), "mlx5_" + std::to_string(i)),
              nic.os_names.end());
  }
  // The parent chain of a GPU: downstream port, upstream port, root port, host bridge.
  const nlohmann::json j = to_json(gpu0, tree);
  EXPECT_EQ(j["upstream"],
            (nlohmann::json{"0000:17:00.0", "0000:16:00.0", "0000:15:01.0", "0000:[15-25]"}));
  EXPECT_EQ(j["kind"], "gpu");
  EXPECT_EQ(j["class"], "0x0302");
}

TEST(PciTree, FromNcclXmlOfH100Node) {
  const PciTree tree = pci_tree_from_nccl_xml(read_text(test::h100_nccl_xml()), "nccl.xml");
  EXPECT_EQ(tree.source, "nccl");
  EXPECT_TRUE(tree.switches_collapsed);
  const auto gpus = tree.of_kind(PciKind::gpu);
  const auto nics = tree.of_kind(PciKind::nic);
  ASSERT_EQ(gpus.size(), 8u);
  ASSERT_EQ(nics.size(), 8u);
  EXPECT_EQ(tree.of_kind(PciKind::bridge).size(), 8u); // one <pci> per switch
  const PciDevice &gpu0 = tree.devices[static_cast<std::size_t>(gpus[0])];
  EXPECT_EQ(gpu0.bus_id, "0000:18:00.0");
  EXPECT_EQ(gpu0.class_id, 0x0302); // from "0x030200"
  EXPECT_EQ(gpu0.os_names, std::vector<std::string>{"cuda0"});
  EXPECT_EQ(gpu0.link_gtransfers_per_s, 32.0);
  EXPECT_EQ(gpu0.link_width, 16);
  EXPECT_EQ(gpu0.attributes["gpu"]["sm"], 90);
  EXPECT_EQ(gpu0.attributes["gpu"]["nvlinks"][0]["count"], 18);
  const PciDevice &nic7 = tree.devices[static_cast<std::size_t>(nics[7])];
  EXPECT_EQ(nic7.os_names, std::vector<std::string>{"mlx5_7"});
  EXPECT_EQ(nic7.numa_node, 1);
  EXPECT_EQ(nic7.attributes["nets"][0]["speed_mbits_per_s"], 400000);

  const nlohmann::json numa = nccl_numa_nodes(read_text(test::h100_nccl_xml()), "nccl.xml");
  ASSERT_EQ(numa.size(), 2u);
  EXPECT_EQ(numa[0]["cpus"], "0-55,112-167");
  EXPECT_EQ(numa[1]["cpus"], "56-111,168-223");
}

TEST(PciTree, NcclNicOutsidePciHangsFromTheCpu) {
  const PciTree tree = pci_tree_from_nccl_xml(
      R"(<system version="1"><cpu numaid="1"><nic><net name="eth0" dev="0" speed="100000"/>
         </nic></cpu></system>)",
      "virtual.xml");
  const auto nics = tree.of_kind(PciKind::nic);
  ASSERT_EQ(nics.size(), 1u);
  EXPECT_EQ(tree.devices[0].bus_id, "");
  EXPECT_EQ(tree.devices[0].numa_node, 1);
  EXPECT_EQ(tree.devices[0].os_names, std::vector<std::string>{"eth0"});
}

TEST(PciTree, DetectsTheFileKindByRootElement) {
  EXPECT_EQ(detect_topology_file(test::h100_hwloc_xml()), TopologyFileKind::hwloc_xml);
  std::string text;
  EXPECT_EQ(detect_topology_file(test::h100_nccl_xml(), &text), TopologyFileKind::nccl_xml);
  EXPECT_NE(text.find("<system"), std::string::npos);
}

TEST(PciTree, MalformedXmlIsAnInputErrorNamingTheFileAndLine) {
  const TempFile file(
      "<system version=\"1\">\n  <cpu numaid=\"0\">\n    <pci busid=\"0000:18:00.0\" class=>\n"
      "  </cpu>\n</system>\n");
  try {
    detect_topology_file(file.path());
    FAIL() << "no InputError";
  } catch (const InputError &e) {
    EXPECT_NE(e.where().find(file.path()), std::string::npos) << e.what();
    EXPECT_NE(e.where().find(":3"), std::string::npos) << e.what(); // the line of the bad tag
    EXPECT_NE(std::string(e.what()).find("not well-formed XML"), std::string::npos);
    EXPECT_FALSE(e.fix().empty());
  }
  EXPECT_THROW(pci_tree_from_nccl_xml("<system><cpu>", "inline.xml"), InputError);
}

TEST(PciTree, UnknownRootOrMissingFileIsAnInputError) {
  const TempFile file("<graphs version=\"1\"/>");
  try {
    detect_topology_file(file.path());
    FAIL() << "no InputError";
  } catch (const InputError &e) {
    EXPECT_EQ(e.where(), file.path());
    EXPECT_NE(e.problem().find("<graphs>"), std::string::npos) << e.what();
  }
  EXPECT_THROW(detect_topology_file("/nonexistent/topo.xml"), InputError);
  EXPECT_THROW(pci_tree_from_nccl_xml("<topology/>", "hwloc.xml"), InputError);
}

} // namespace
} // namespace railgauge
