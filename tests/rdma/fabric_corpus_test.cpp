// The readers on the real fabric dumps of tests/fixtures/rdma/topology/corpus/ (README.md there
// gives each file's source) and on Slurm's documented topology.conf: each summarised with the
// counts its source states.
#include <algorithm>
#include <set>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "harness/error.h"
#include "rdma/fabric/fabric_summary.h"
#include "rdma/fabric/topology_readers.h"
#include "tests/rdma/topology_fixtures.h"

namespace railgauge::rdma::fabric {
namespace {

int count_with(const std::vector<std::string> &lines, const std::string &what) {
  return static_cast<int>(std::count_if(lines.begin(), lines.end(), [&](const std::string &l) {
    return l.find(what) != std::string::npos;
  }));
}

// NVIDIA/topograph's ibnetdiscover example: 40 MQM9701 switches, 31 leaves and 9 spines, 40
// SHARP aggregation nodes, 69 HCAs with no host name, 12 leaves with 14-17 uplinks, not 18.
TEST(FabricCorpus, TopographNdrDumpGivesItsSwitchesLeavesSpinesAndShortLeaves) {
  const auto t = load_topology(kDir + "corpus/topograph_ndr_dgxh100_40sw_example.out");
  EXPECT_EQ(t.switches_read, 40);
  EXPECT_EQ(t.leaves.size(), 31u);
  EXPECT_EQ(t.spines.size(), 9u);
  for (const auto &s : t.spines)
    EXPECT_NE(s.find("IBSPINE"), std::string::npos) << s;
  EXPECT_EQ(count_with(t.unread, "SHARP aggregation node"), 40);
  EXPECT_EQ(t.unresolved.size(), 69u);
  const auto j = summary_json(t, "example.out");
  EXPECT_EQ(j["usual_uplinks_per_leaf"], 18);
  ASSERT_EQ(j["leaves_short_of_usual_uplinks"].size(), 12u);
  for (const auto &leaf : j["leaves_short_of_usual_uplinks"]) {
    EXPECT_GE(leaf["uplinks"].get<int>(), 14) << leaf;
    EXPECT_LE(leaf["uplinks"].get<int>(), 17) << leaf;
  }
  EXPECT_EQ(t.hosts_read, 122 + 69); // 122 named DGX hosts, 69 HCAs by GUID
  EXPECT_EQ(t.rails, 4);             // the DGX H100's four compute HCAs on this fabric
  EXPECT_TRUE(t.ignored.empty());
}

// loginoff/infiniband_topology: 8 SX6036, 6 leaves and 2 spines (8 uplinks a leaf, ib1 one
// short), 144 single-HCA hosts; tank1 has both ports on spine ib7 (set aside, said).
TEST(FabricCorpus, LoginoffFdrDumpSetsAsideTheHostsOnASpine) {
  const auto t = load_topology(kDir + "corpus/loginoff_sx6036_fdr10_qdr_8sw_2014.topo");
  EXPECT_EQ(t.switches_read, 8);
  EXPECT_EQ(t.leaves.size(), 6u);
  EXPECT_EQ(std::set<std::string>(t.spines.begin(), t.spines.end()),
            (std::set<std::string>{"ib7", "ib8"}));
  EXPECT_EQ(t.hosts_read, 144);
  EXPECT_EQ(count_with(t.ignored, "tank1/"), 2);
  EXPECT_EQ(count_with(t.ignored, "a spine by its other cables"),
            static_cast<int>(t.ignored.size()));
  const auto ib1 = std::find(t.leaves.begin(), t.leaves.end(), "ib1") - t.leaves.begin();
  ASSERT_LT(ib1, static_cast<long>(t.leaves.size()));
  EXPECT_EQ(t.leaf_uplinks[ib1].size(), 7u);
  for (std::size_t l = 0; l < t.leaves.size(); ++l) {
    if (static_cast<long>(l) != ib1)
      EXPECT_EQ(t.leaf_uplinks[l].size(), 8u) << t.leaves[l];
  }
  EXPECT_TRUE(t.unresolved.empty());
}

// treydock/infiniband_exporter's `ibnetdiscover -p` lines: five switches, one host (worker20),
// a SHARP node cabled twice, three ports without a cable.
TEST(FabricCorpus, IbnetdiscoverPortsFormIsReadWithWhatItLeaves) {
  const auto t = load_topology(kDir + "corpus/treydock_hdr_ports_p_handpicked_test2.out");
  EXPECT_EQ(t.switches_read, 5);
  EXPECT_EQ(t.nodes, std::vector<std::string>{"worker20"});
  EXPECT_EQ(t.nics[0][0], "mlx5_3");
  EXPECT_EQ(t.leaves, std::vector<std::string>{"5FB0405-leaf-IB01"});
  EXPECT_EQ(count_with(t.unread, "SHARP aggregation node"), 2);
  EXPECT_EQ(count_with(t.unread, "no cable"), 3);
  EXPECT_EQ(t.unread.size(), 5u); // each of the other lines is said, with its line
  EXPECT_EQ(count_with(t.unread, ".out:3:"), 1);
  // In the file's order, though the SHARP lines are noted after the reading.
  const std::vector<int> lines = {1, 3, 4, 5, 6}; // line 2 is worker20's cable
  ASSERT_EQ(t.unread.size(), lines.size());
  for (std::size_t i = 0; i < lines.size(); ++i)
    EXPECT_NE(t.unread[i].find(fmt::format(".out:{}:", lines[i])), std::string::npos)
        << t.unread[i];
}

// NVIDIA NetQ's topologyGraph (topograph's test output): spine net-unit-s1, leaves l1 and l2,
// 8 DGX hosts with 4 ports each; l1-s1 has 28 links, l2-s1 has 19.
TEST(FabricCorpus, NetqTopologyGraphGivesItsLeavesSpineAndUnevenUplinks) {
  const auto t = load_topology(kDir + "corpus/topograph_netq_topologyGraph_8dgx_2leaf_1spine.json");
  EXPECT_EQ(t.switches_read, 3);
  EXPECT_EQ(t.spines, std::vector<std::string>{"net-unit-s1"});
  ASSERT_EQ(t.leaves.size(), 2u);
  EXPECT_EQ(t.nodes.size(), 8u);
  EXPECT_EQ(t.rails, 4);
  EXPECT_EQ(t.link_indices(LinkKind::nic_leaf).size(), 32u);
  const auto l1 = t.leaves[0] == "net-unit-l1" ? 0 : 1;
  EXPECT_EQ(t.leaf_uplinks[l1].size(), 28u);
  EXPECT_EQ(t.leaf_uplinks[1 - l1].size(), 19u);
}

// unifabric's lldpcli -f json0 table of a lab host: an H3C access switch, and two NICs cabled
// back to back to host 10-20-1-50 (set aside: no switch between).
TEST(FabricCorpus, LldpcliJson0TableOfOneHostGivesItsSwitchAndBackToBackCables) {
  const auto t = load_topology(
      kDir + "corpus/unifabric_lab_host_h3c_and_b2b_lldpcli_json0_EXTRACT.json", {"", "lab-host"});
  EXPECT_EQ(t.switches_read, 1);
  EXPECT_EQ(t.nodes, std::vector<std::string>{"lab-host"});
  EXPECT_EQ(t.leaves, std::vector<std::string>{"DaoCloud_ShangPu_H3C_D01_AccessSwitch"});
  EXPECT_EQ(t.links[t.nic_link[0]].label,
            "lab-host/enp129s0f0 - DaoCloud_ShangPu_H3C_D01_AccessSwitch[GigabitEthernet1/0/17]");
  EXPECT_EQ(t.hosts_read, 1);
  EXPECT_EQ(count_with(t.ignored, "host to host"), 2);
  EXPECT_EQ(count_with(t.ignored, "10-20-1-50"), 2);
}

// Slurm's documented example (slurm.schedmd.com/topology.conf.html, EXAMPLE): s0-s2 hold 6
// nodes each, s3 joins them.
TEST(FabricCorpus, SlurmTopologyConfExampleGivesThreeLeavesAndOneSpine) {
  const auto t = load_topology(kDir + "slurm/topology.conf");
  EXPECT_EQ(t.switches_read, 4);
  EXPECT_EQ(t.leaves, (std::vector<std::string>{"s0", "s1", "s2"}));
  EXPECT_EQ(t.spines, std::vector<std::string>{"s3"});
  EXPECT_EQ(t.nodes.size(), 18u);
  EXPECT_EQ(t.nodes.front(), "dev0");
  EXPECT_EQ(t.link_indices(LinkKind::leaf_spine).size(), 3u);
}

// A third tier (a core switch over two spines) is set aside and said; hostlists with zero
// padding and several ranges expand as Slurm's do; an unknown key is named with its line.
TEST(FabricCorpus, SlurmThirdTierIsSetAsideAndHostlistsExpand) {
  ReadNotes notes;
  const auto cables = read_slurm_topology("SwitchName=l0 Nodes=n[01-02,7]\n"
                                          "SwitchName=l1 Nodes=m1\n"
                                          "SwitchName=sp0 Switches=l[0-1]\n"
                                          "SwitchName=sp1 Switches=l0,l1 LinkSpeed=200\n"
                                          "switchname=core Switches=sp[0-1] Weight=3\n",
                                          "t.conf", &notes);
  const auto t = build_topology(cables, "t.conf");
  EXPECT_EQ(t.nodes, (std::vector<std::string>{"m1", "n01", "n02", "n7"}));
  EXPECT_EQ(t.spines.size(), 3u); // sp0, sp1 and core: no node on them
  EXPECT_EQ(t.ignored.size(), 2u);
  EXPECT_EQ(count_with(t.ignored, "core"), 2);
  ASSERT_EQ(notes.unread.size(), 1u);
  EXPECT_EQ(notes.unread[0], "t.conf:5: 'Weight=3': not a key of topology/tree's lines");
}

// A hostlist of more nodes than any cluster has is refused at once, naming its line, as are
// hostlists whose names add up past 64 MiB (one line of "[0-999999]" over long names once took
// over 10 s under the sanitizers: tests/fuzz/regressions/topology_readers).
TEST(FabricCorpus, SlurmHostlistsPastAnyClusterAreRefusedNamingTheLine) {
  try {
    read_slurm_topology("SwitchName=l0 Nodes=n[0-99999]\nSwitchName=l1 Nodes=m[0-100000]\n",
                        "big.conf");
    FAIL() << "a hostlist of 100,001 nodes was read";
  } catch (const InputError &e) {
    EXPECT_EQ(e.where(), "big.conf:2");
    EXPECT_NE(std::string(e.what()).find("names over 100000 nodes"), std::string::npos) << e.what();
  }
  std::string conf;
  const std::string long_name(200, 'a');
  for (int leaf = 0; leaf < 4; ++leaf)
    conf += fmt::format("SwitchName=l{} Nodes={}{}[0-99999]\n", leaf, long_name, leaf);
  try {
    read_slurm_topology(conf, "long.conf");
    FAIL() << "400,000 names of 200 characters were read";
  } catch (const InputError &e) {
    EXPECT_NE(std::string(e.what()).find("over 64 MiB of names"), std::string::npos) << e.what();
  }
}

// Lost tabs (a terminal capture's spaces), CRLF line ends and GUID-only hosts named by a map.
TEST(FabricCorpus, IbnetdiscoverWithSpacesCrlfAndAGuidMap) {
  const std::string text =
      "Switch    36 \"S-0002c90200417670\"    # \"MF0;leaf-a:SX6036/U1\" lid 1\r\n"
      "[1]    \"H-0002c90300080e84\"[1](2c90300080e85)    # \"MT4129 ConnectX7   Mellanox "
      "Technologies\" lid 3 4xNDR\r\n"
      "[2]    \"H-0002c90300080e90\"[1](2c90300080e91)    # \"node2 mlx5_0\" lid 4 4xNDR\r\n"
      "[30]   \"S-0002c90200417680\"[1]    # \"MF0;spine-a:SX6036/U1\" lid 2 4xNDR\r\n"
      "garbage here\r\n";
  ReadNotes notes;
  const auto plain = build_topology(read_ibnetdiscover(text, "t", {}, &notes), "t");
  EXPECT_EQ(plain.nodes, (std::vector<std::string>{"H-0002c90300080e84", "node2"}));
  EXPECT_EQ(plain.leaves, std::vector<std::string>{"leaf-a"});
  EXPECT_EQ(plain.spines, std::vector<std::string>{"spine-a"});
  ASSERT_EQ(notes.unresolved.size(), 1u);
  ASSERT_EQ(notes.unread.size(), 1u);
  EXPECT_EQ(notes.unread[0], "t:5: 'garbage here': not a line of ibnetdiscover's");
  const auto map = read_guid_map("0x0002c90300080e84 node1\n");
  const auto named = build_topology(read_ibnetdiscover(text, "t", map), "t");
  EXPECT_EQ(named.nodes, (std::vector<std::string>{"node1", "node2"}));
}

} // namespace
} // namespace railgauge::rdma::fabric
