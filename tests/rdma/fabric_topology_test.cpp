// The topology readers on a real ibnetdiscover file, lldpd-format neighbour tables and the
// YAML inventory (tests/fixtures/rdma/topology/README.md says where each file comes from).
#include <fstream>
#include <set>
#include <sstream>

#include <gtest/gtest.h>

#include "harness/error.h"
#include "rdma/fabric/topology_readers.h"
#include "tests/rdma/topology_fixtures.h"

namespace railgauge::rdma::fabric {
namespace {

std::string slurp(const std::string &path) {
  std::ifstream in(path);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

// github.com/ltaulell/HPC_toolset @ be176026, infiniband/X5.topofile: the PSMN X5 cluster.
TEST(FabricTopology, IbnetdiscoverOfARealSubnetFindsTheOperatorsSpines) {
  const auto t = load_topology(kDir + "ibnetdiscover/X5.topofile");
  std::set<std::string> spines(t.spines.begin(), t.spines.end());
  std::set<std::string> expected;
  std::istringstream in(slurp(kDir + "ibnetdiscover/X5.spine"));
  for (std::string line; std::getline(in, line);)
    if (!line.empty() && line[0] == 'S')
      expected.insert(line);
  EXPECT_EQ(spines, expected);
  // 89 HCAs, one port each, all cabled; 86 named by the operators' map.
  EXPECT_EQ(t.nodes.size(), 89u);
  EXPECT_EQ(t.rails, 1);
  EXPECT_EQ(t.link_indices(LinkKind::nic_leaf).size(), 89u);
  EXPECT_NE(std::find(t.nodes.begin(), t.nodes.end(), "r510gluster1"), t.nodes.end());
  EXPECT_EQ(t.leaves.size(), 6u);
  // S-0008f105001086a2 joins spines only (a third tier): its six cables fit no two-level tree
  // and are set aside, said, rather than planned.
  EXPECT_EQ(t.ignored.size(), 6u);
  for (const auto &why : t.ignored)
    EXPECT_NE(why.find("S-0008f105001086a2"), std::string::npos) << why;
  // Every leaf-spine cable once, though ibnetdiscover lists it under both switches: the leaf
  // S-0002c90200417670 has 12 switch ports, all to spines.
  const auto leaf = std::find(t.leaves.begin(), t.leaves.end(), "S-0002c90200417670");
  ASSERT_NE(leaf, t.leaves.end());
  EXPECT_EQ(t.leaf_uplinks[leaf - t.leaves.begin()].size(), 12u);
}

TEST(FabricTopology, IbnetdiscoverNamesHostsFromTheirNodeDescription) {
  const std::string text = "Switch\t36 \"S-ec0d9a0300ec8240\"\t\t# \"SwitchIB Mellanox "
                           "Technologies\" base port 0 lid 48 lmc 0\n"
                           "[1]\t\"H-506b4b03003fa9b6\"[1](506b4b03003fa9b6) \t\t# \"node018 "
                           "HCA-1\" lid 67 4xEDR\n"
                           "[13]\t\"S-ec0d9a0300ec81e0\"[19]\t\t# \"SwitchIB Mellanox "
                           "Technologies\" lid 21 4xEDR\n";
  const auto t = build_topology(read_ibnetdiscover(text, "t"), "t");
  ASSERT_EQ(t.nodes, std::vector<std::string>{"node018"});
  EXPECT_EQ(t.nics[0][0], "HCA-1");
  EXPECT_EQ(t.links[t.nic_link[0]].label, "node018/HCA-1 - S-ec0d9a0300ec8240[1]");
  EXPECT_EQ(t.spines, std::vector<std::string>{"S-ec0d9a0300ec81e0"});
}

TEST(FabricTopology, IbnetdiscoverRejectsAListingItCannotRead) {
  try {
    read_ibnetdiscover("Switch 36 \"S-01\" # \"x\"\n[1] garbage\n", "topo.txt");
    FAIL();
  } catch (const InputError &e) {
    EXPECT_EQ(e.where(), "topo.txt:2");
  }
  EXPECT_THROW(read_ibnetdiscover("# empty\n", "topo.txt"), InputError);
}

TEST(FabricTopology, LldpTablesGiveRailsLeavesAndSpines) {
  const auto t = load_topology(kDir + "lldp");
  EXPECT_EQ(t.nodes, (std::vector<std::string>{"gpu01", "gpu02", "gpu03", "gpu04"}));
  EXPECT_EQ(t.rails, 2);
  EXPECT_EQ(t.leaves, (std::vector<std::string>{"leaf-r0", "leaf-r1"}));
  EXPECT_EQ(std::set<std::string>(t.spines.begin(), t.spines.end()),
            (std::set<std::string>{"spine-1", "spine-2"}));
  EXPECT_EQ(t.link_indices(LinkKind::nic_leaf).size(), 7u); // gpu04's eth3 has no neighbour
  EXPECT_EQ(t.nic_link[t.endpoint(3, 1)], -1);
  EXPECT_EQ(t.link_indices(LinkKind::leaf_spine).size(), 4u);
  // gpu02 sees its leaf port as an ifname; the others as SONiC's local id.
  EXPECT_EQ(t.links[t.nic_link[t.endpoint(1, 1)]].label, "gpu02/eth3 - leaf-r1[Ethernet8]");
  EXPECT_EQ(t.links[t.leaf_uplinks[0][0]].label, "leaf-r0[Ethernet248] - spine-1[Ethernet0]");
}

TEST(FabricTopology, LldpRejectsATableWithNoNeighbourAndNonJson) {
  EXPECT_THROW(read_lldpctl_json({{"h", true, R"({"lldp": [{"interface": []}]})", "h.json"}}),
               InputError);
  EXPECT_THROW(read_lldpctl_json({{"h", true, "lldp.eth0.via=LLDP", "h.json"}}), InputError);
}

TEST(FabricTopology, YamlInventoryKeepsItsRailOrderAndParallelUplinks) {
  const auto t = load_topology(kDir + "fabric.yaml");
  EXPECT_EQ(t.rails, 2);
  EXPECT_EQ(t.leaf_of_endpoint(t.endpoint(1, 1)), 1);
  EXPECT_EQ(t.link_indices(LinkKind::leaf_spine).size(), 4u);
  EXPECT_EQ(t.links[t.leaf_uplinks[1][1]].label, "leaf-r1[uplink1] - spine-b[]");
}

TEST(FabricTopology, YamlErrorsSayWhereAndWhat) {
  try {
    read_topology_yaml("nodes:\n  n1:\n    - {leaf: l0}\n", "f.yaml");
    FAIL();
  } catch (const InputError &e) {
    EXPECT_EQ(e.where(), "f.yaml:3");
    EXPECT_NE(e.problem().find("'nic'"), std::string::npos);
  }
  EXPECT_THROW(read_topology_yaml("leaves: {}\n", "f.yaml"), InputError);
  const auto twice = read_topology_yaml("nodes:\n  n1:\n    - {nic: a, leaf: l0}\n", "f");
  auto cables = twice;
  cables.push_back({"n1", "a", "l1", "", true, 0});
  EXPECT_THROW(build_topology(cables, "f"), InputError);
}

} // namespace
} // namespace railgauge::rdma::fabric
