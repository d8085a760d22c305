// Near/far NUMA placement per GPU, decided on the hwloc XML export of an 8-GPU H100 node
// (tests/fixtures/topology: GPUs 0-3 on NUMA node 0, GPUs 4-7 on node 1) and on this machine.
#include <algorithm>
#include <set>

#include <gtest/gtest.h>

#include "harness/inventory/pci_tree.h"
#include "offload/placement.h"

namespace railgauge::offload {
namespace {

std::string fixture_xml() {
  return std::string(RAILGAUGE_TEST_FIXTURES) + "/topology/h100_8gpu_8nic.hwloc.xml";
}

std::vector<std::string> gpu_bus_ids(const Topology &topology) {
  const PciTree tree = pci_tree_from_hwloc(topology);
  std::vector<std::string> ids;
  for (int i : tree.of_kind(PciKind::gpu))
    ids.push_back(tree.devices[static_cast<std::size_t>(i)].bus_id);
  return ids;
}

HostPlacement placed(const Topology &t, const std::string &bus, Placement p, unsigned nth = 0) {
  auto where = choose_host_placement(t, bus, p, nth);
  if (auto *why = std::get_if<std::string>(&where))
    ADD_FAILURE() << bus << ": " << *why;
  return std::get_if<HostPlacement>(&where) ? std::get<HostPlacement>(where) : HostPlacement{};
}

TEST(Placement, ParsesItsAxisValues) {
  EXPECT_EQ(parse_placement("near"), Placement::near);
  EXPECT_EQ(parse_placement("far"), Placement::far);
  EXPECT_FALSE(parse_placement("close"));
  EXPECT_EQ(to_string(Placement::far), "far");
}

TEST(Placement, EightGpuNodeNearIsTheGpusSocketFarIsTheOther) {
  const Topology topology = Topology::load_xml(fixture_xml());
  const auto gpus = gpu_bus_ids(topology);
  ASSERT_EQ(gpus.size(), 8u);
  EXPECT_EQ(gpus[0], "0000:18:00.0");
  const auto nodes = topology.numa_nodes();
  ASSERT_EQ(nodes.size(), 2u);
  for (std::size_t g = 0; g < gpus.size(); ++g) {
    SCOPED_TRACE(gpus[g]);
    const unsigned own = g < 4 ? 0 : 1, other = 1 - own;
    const HostPlacement near = placed(topology, gpus[g], Placement::near);
    EXPECT_EQ(near.numa_node, own);
    EXPECT_EQ(near.gpu_numa_node, static_cast<int>(own));
    EXPECT_EQ(near.how, "the GPU's local NUMA node");
    const HostPlacement far = placed(topology, gpus[g], Placement::far);
    EXPECT_EQ(far.numa_node, other);
    EXPECT_EQ(far.gpu_numa_node, static_cast<int>(own));
    EXPECT_NE(far.how.find("another package"), std::string::npos) << far.how;
    // The thread is pinned to a core of the node that holds the memory.
    const auto &near_pus = nodes[own].core_pus;
    const auto &far_pus = nodes[other].core_pus;
    EXPECT_NE(std::find(near_pus.begin(), near_pus.end(), near.pu), near_pus.end());
    EXPECT_NE(std::find(far_pus.begin(), far_pus.end(), far.pu), far_pus.end());
  }
}

TEST(Placement, GpusSharingANodeGetTheirOwnCores) {
  const Topology topology = Topology::load_xml(fixture_xml());
  const auto gpus = gpu_bus_ids(topology);
  std::set<unsigned> pus;
  for (unsigned g = 0; g < 4; ++g)
    pus.insert(placed(topology, gpus[g], Placement::near, g).pu);
  EXPECT_EQ(pus.size(), 4u) << "four GPUs on node 0, four different cores";
  // Wraps around the node's cores rather than failing.
  const auto cores = topology.numa_nodes()[0].core_pus.size();
  EXPECT_EQ(placed(topology, gpus[0], Placement::near, static_cast<unsigned>(cores)).pu,
            placed(topology, gpus[0], Placement::near, 0).pu);
}

TEST(Placement, UnknownGpuIsAReasonNotACrash) {
  const Topology topology = Topology::load_xml(fixture_xml());
  auto where = choose_host_placement(topology, "0000:ee:00.0", Placement::near);
  ASSERT_TRUE(std::holds_alternative<std::string>(where));
  EXPECT_NE(std::get<std::string>(where).find("not in the hwloc topology"), std::string::npos);
}

TEST(Placement, ThisMachineWithOneNodeHasNoFarNode) {
  const Topology topology = Topology::load_this_machine();
  std::size_t with_cores = 0;
  for (const auto &n : topology.numa_nodes())
    with_cores += n.core_pus.empty() ? 0 : 1;
  if (with_cores != 1)
    GTEST_SKIP() << "this machine has " << with_cores << " NUMA nodes with cores";
  const auto gpus = gpu_bus_ids(topology);
  if (gpus.empty())
    GTEST_SKIP() << "no GPU in this machine's hwloc topology";
  const HostPlacement near = placed(topology, gpus[0], Placement::near);
  EXPECT_EQ(near.numa_node, topology.numa_nodes()[0].os_index);
  auto far = choose_host_placement(topology, gpus[0], Placement::far);
  ASSERT_TRUE(std::holds_alternative<std::string>(far));
  EXPECT_NE(std::get<std::string>(far).find("no far node"), std::string::npos);
}

TEST(PlacementCheck, SaysWhereThePagesWentAndWhetherTheBindingHeld) {
  using Found = std::vector<std::variant<std::vector<unsigned>, std::string>>;
  const nlohmann::json held =
      placement_check(1, Found{std::vector<unsigned>{1}, std::vector<unsigned>{1}});
  EXPECT_EQ(held.at("host_numa_nodes_measured"), (std::vector<unsigned>{1}));
  EXPECT_TRUE(held.at("placement_honoured"));
  // A container without CAP_SYS_NICE: the far buffer's pages stayed on the local node.
  const nlohmann::json ignored =
      placement_check(1, Found{std::vector<unsigned>{0}, std::vector<unsigned>{1}});
  EXPECT_EQ(ignored.at("host_numa_nodes_measured"), (std::vector<unsigned>{0, 1}));
  EXPECT_FALSE(ignored.at("placement_honoured"));
  const nlohmann::json unknown =
      placement_check(0, Found{std::vector<unsigned>{0}, std::string("move_pages: EPERM")});
  EXPECT_TRUE(unknown.at("placement_honoured").is_null());
  EXPECT_EQ(unknown.at("host_numa_node_unknown_reason"), "move_pages: EPERM");
  EXPECT_TRUE(placement_check(0, Found{}).at("placement_honoured").is_null());
}

} // namespace
} // namespace railgauge::offload
