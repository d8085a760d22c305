#include <gtest/gtest.h>

#include <fstream>

#include "harness/inventory/rail_map.h"
#include "tests/harness/inventory/fixtures.h"

namespace railgauge {
namespace {

PciTree h100_from_hwloc() {
  return pci_tree_from_hwloc(Topology::load_xml(test::h100_hwloc_xml()));
}

PciTree h100_from_nccl() {
  std::ifstream in(test::h100_nccl_xml());
  const std::string text{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
  return pci_tree_from_nccl_xml(text, test::h100_nccl_xml());
}

void expect_one_to_one_pix(const PciTree &tree) {
  const RailMap map = build_rail_map(tree);
  ASSERT_EQ(map.gpus.size(), 8u);
  ASSERT_EQ(map.nics.size(), 8u);
  ASSERT_EQ(map.rails.size(), 8u);
  for (std::size_t i = 0; i < 8; ++i) {
    const Rail &rail = map.rails[i];
    ASSERT_TRUE(rail.nic.has_value());
    EXPECT_EQ(*rail.nic, map.nics[i]) << "GPU " << i;
    EXPECT_EQ(rail.path, PciPath::PIX) << "GPU " << i;
    const auto &nic = tree.devices[static_cast<std::size_t>(*rail.nic)];
    EXPECT_EQ(nic.os_names.back(), "mlx5_" + std::to_string(i));
    for (std::size_t n = 0; n < 8; ++n) {
      const bool same_socket = (i < 4) == (n < 4);
      const PciPath expected = i == n ? PciPath::PIX : same_socket ? PciPath::NODE : PciPath::SYS;
      EXPECT_EQ(map.paths[i][n], expected) << "GPU " << i << " NIC " << n;
    }
  }
}

TEST(RailMap, HwlocH100NodePairsGpuIWithNicIUnderOneSwitch) {
  expect_one_to_one_pix(h100_from_hwloc());
}

TEST(RailMap, NcclH100NodePairsGpuIWithNicIUnderOneSwitch) {
  expect_one_to_one_pix(h100_from_nccl());
}

TEST(RailMap, CrossSocketPairIsSys) {
  for (const PciTree &tree : {h100_from_hwloc(), h100_from_nccl()}) {
    const int gpu0 = tree.find("0000:18:00.0");
    const int nic4 = tree.find("0000:99:00.0");
    ASSERT_GE(gpu0, 0);
    ASSERT_GE(nic4, 0);
    EXPECT_EQ(pci_path(tree, gpu0, nic4), PciPath::SYS) << tree.source;
    EXPECT_EQ(pci_path(tree, nic4, gpu0), PciPath::SYS) << tree.source;
  }
}

TEST(RailMap, JsonNamesTheRails) {
  const PciTree tree = h100_from_hwloc();
  const nlohmann::json j = to_json(build_rail_map(tree), tree);
  ASSERT_EQ(j["rails"].size(), 8u);
  EXPECT_EQ(j["rails"][5]["gpu_bus_id"], "0000:a9:00.0");
  EXPECT_EQ(j["rails"][5]["nic_name"], "mlx5_5");
  EXPECT_EQ(j["rails"][5]["path"], "PIX");
  EXPECT_EQ(j["rails"][5]["gpu_numa_node"], 1);
  EXPECT_EQ(j["gpus"][0]["name"], "cuda0");
  EXPECT_EQ(j["paths"][0][4], "SYS");
}

// A hand-made full (hwloc-style) tree for the other distances:
//   HB0 (NUMA 0) - RP0 - USP_A - DSP_A0 - GPU0
//                              - DSP_A1 - USP_B - DSP_B0 - NIC0   (a switch below a switch)
//                - RP1 - NIC1                                     (same host bridge)
//   HB1 (NUMA 0) - RP2 - NIC2                                     (other host bridge)
class SyntheticTree : public ::testing::Test {
protected:
  int add(PciKind kind, int parent, std::string bus_id) {
    PciDevice d;
    d.kind = kind;
    d.parent = parent;
    d.numa_node = 0;
    d.bus_id = std::move(bus_id);
    tree.devices.push_back(d);
    return static_cast<int>(tree.devices.size()) - 1;
  }
  void SetUp() override {
    tree.source = "test";
    const int hb0 = add(PciKind::host_bridge, -1, "0000:[00-3f]");
    const int rp0 = add(PciKind::bridge, hb0, "0000:00:01.0");
    const int usp_a = add(PciKind::bridge, rp0, "0000:01:00.0");
    const int dsp_a0 = add(PciKind::bridge, usp_a, "0000:02:00.0");
    gpu0 = add(PciKind::gpu, dsp_a0, "0000:03:00.0");
    const int dsp_a1 = add(PciKind::bridge, usp_a, "0000:02:01.0");
    const int usp_b = add(PciKind::bridge, dsp_a1, "0000:04:00.0");
    const int dsp_b0 = add(PciKind::bridge, usp_b, "0000:05:00.0");
    nic0 = add(PciKind::nic, dsp_b0, "0000:06:00.0");
    const int rp1 = add(PciKind::bridge, hb0, "0000:00:02.0");
    nic1 = add(PciKind::nic, rp1, "0000:10:00.0");
    const int hb1 = add(PciKind::host_bridge, -1, "0000:[40-7f]");
    const int rp2 = add(PciKind::bridge, hb1, "0000:40:01.0");
    nic2 = add(PciKind::nic, rp2, "0000:41:00.0");
  }
  PciTree tree;
  int gpu0 = -1, nic0 = -1, nic1 = -1, nic2 = -1;
};

TEST_F(SyntheticTree, NestedSwitchesArePxb) { EXPECT_EQ(pci_path(tree, gpu0, nic0), PciPath::PXB); }

TEST_F(SyntheticTree, SameHostBridgeIsPhb) { EXPECT_EQ(pci_path(tree, gpu0, nic1), PciPath::PHB); }

TEST_F(SyntheticTree, OtherHostBridgeSameNumaIsNode) {
  EXPECT_EQ(pci_path(tree, gpu0, nic2), PciPath::NODE);
  tree.devices[static_cast<std::size_t>(nic2)].numa_node = 1;
  EXPECT_EQ(pci_path(tree, gpu0, nic2), PciPath::SYS);
  tree.devices[static_cast<std::size_t>(nic2)].numa_node = -1; // unknown: assume the worst
  EXPECT_EQ(pci_path(tree, gpu0, nic2), PciPath::SYS);
}

TEST_F(SyntheticTree, RailIsTheClosestNic) {
  const RailMap map = build_rail_map(tree);
  ASSERT_EQ(map.rails.size(), 1u);
  EXPECT_EQ(map.rails[0].nic, nic0);
  EXPECT_EQ(map.rails[0].path, PciPath::PXB);
}

TEST(RailMap, FewerNicsThanGpusAreSharedEvenly) {
  // Four GPUs, two switches, one NIC per switch (a 2-GPUs-per-NIC node), NCCL form.
  PciTree tree;
  tree.switches_collapsed = true;
  auto add = [&](PciKind kind, int parent, std::string bus) {
    PciDevice d;
    d.kind = kind;
    d.parent = parent;
    d.numa_node = 0;
    d.bus_id = std::move(bus);
    tree.devices.push_back(d);
    return static_cast<int>(tree.devices.size()) - 1;
  };
  const int sw0 = add(PciKind::bridge, -1, "0000:10:00.0");
  add(PciKind::gpu, sw0, "0000:11:00.0");
  add(PciKind::gpu, sw0, "0000:12:00.0");
  const int nic_a = add(PciKind::nic, sw0, "0000:13:00.0");
  const int sw1 = add(PciKind::bridge, -1, "0000:20:00.0");
  add(PciKind::gpu, sw1, "0000:21:00.0");
  add(PciKind::gpu, sw1, "0000:22:00.0");
  const int nic_b = add(PciKind::nic, sw1, "0000:23:00.0");
  const RailMap map = build_rail_map(tree);
  ASSERT_EQ(map.rails.size(), 4u);
  EXPECT_EQ(map.rails[0].nic, nic_a);
  EXPECT_EQ(map.rails[1].nic, nic_a);
  EXPECT_EQ(map.rails[2].nic, nic_b);
  EXPECT_EQ(map.rails[3].nic, nic_b);
  for (const Rail &rail : map.rails)
    EXPECT_EQ(rail.path, PciPath::PIX);
}

TEST(RailMap, EqualDistancesStillMapOneToOne) {
  // Two GPUs and two NICs all directly under the CPU (no switch): every pair is NODE, and the
  // tie-break by use count and bus order still gives each GPU its own NIC.
  PciTree tree;
  tree.switches_collapsed = true;
  for (const char *bus : {"0000:01:00.0", "0000:02:00.0"}) {
    PciDevice gpu;
    gpu.kind = PciKind::gpu;
    gpu.numa_node = 0;
    gpu.bus_id = bus;
    tree.devices.push_back(gpu);
  }
  for (const char *bus : {"0000:03:00.0", "0000:04:00.0"}) {
    PciDevice nic;
    nic.kind = PciKind::nic;
    nic.numa_node = 0;
    nic.bus_id = bus;
    tree.devices.push_back(nic);
  }
  const RailMap map = build_rail_map(tree);
  EXPECT_EQ(map.rails[0].nic, 2);
  EXPECT_EQ(map.rails[1].nic, 3);
  EXPECT_EQ(map.rails[0].path, PciPath::NODE);
}

TEST(RailMap, NoNicMeansRailsWithoutNic) {
  PciTree tree;
  PciDevice gpu;
  gpu.kind = PciKind::gpu;
  gpu.bus_id = "0000:01:00.0";
  tree.devices.push_back(gpu);
  const RailMap map = build_rail_map(tree);
  ASSERT_EQ(map.rails.size(), 1u);
  EXPECT_FALSE(map.rails[0].nic.has_value());
  const nlohmann::json j = to_json(map, tree);
  EXPECT_TRUE(j["rails"][0]["nic_bus_id"].is_null());
  EXPECT_TRUE(j["rails"][0]["path"].is_null());
}

} // namespace
} // namespace railgauge
