// Hostile topology files: each reader stops at a bound with an InputError naming the file (and
// line), never a crash or a wait. Every rank of a pair matrix reads the topology, so a crash
// here killed them all and left the run "running".
#include <chrono>
#include <fcntl.h>
#include <filesystem>
#include <fstream>
#include <future>
#include <sys/stat.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include "harness/error.h"
#include "rdma/fabric/topology_readers.h"
#include "tests/reliability/temp_dir.h"

namespace railgauge::rdma::fabric {
namespace {

// libstdc++'s std::regex overflowed the stack on this port line's 100 KB NodeDescription.
TEST(FabricTopologyBounds, AnIbnetdiscoverLineOf100KBIsAnInputErrorAtItsLine) {
  const std::string text = "Switch 36 \"S-0008f10500200b50\" # \"leaf\" lid 9\n"
                           "[1] \"H-0002c90300080e84\"[1](2c90300080e85) # \"" +
                           std::string(100000, 'x') + "\" lid 3 4xQDR\n";
  try {
    read_ibnetdiscover(text, "topo.txt");
    FAIL() << "no InputError";
  } catch (const InputError &e) {
    EXPECT_EQ(e.where(), "topo.txt:2");
    EXPECT_NE(e.problem().find("a line longer than 8192 bytes"), std::string::npos) << e.what();
  }
}

// nlohmann::json copies recursively: 100,000 nested arrays overflowed the stack.
TEST(FabricTopologyBounds, AnLldpTableNested100000DeepIsAnInputError) {
  const std::string json =
      R"({"lldp": {"interface": )" + std::string(100000, '[') + std::string(100000, ']') + "}}";
  try {
    read_lldpctl_json({{"gpu01", true, json, "hosts/gpu01.json"}});
    FAIL() << "no InputError";
  } catch (const InputError &e) {
    EXPECT_EQ(e.where(), "hosts/gpu01.json");
    EXPECT_NE(e.problem().find("nested more than 64 deep"), std::string::npos) << e.what();
  }
}

// load_topology's InputError text. A FIFO without a writer blocked every rank's open(2) until
// the point timed out: should the reader block again, the FIFO's write end is opened here, so
// that the test ends either way, failing.
std::string load_error(const std::string &path, const std::string &fifo) {
  auto loaded = std::async(std::launch::async, [&]() -> std::string {
    try {
      load_topology(path);
    } catch (const InputError &e) {
      return e.what();
    }
    return "(no InputError)";
  });
  if (loaded.wait_for(std::chrono::seconds(10)) != std::future_status::ready) {
    const int writer = ::open(fifo.c_str(), O_WRONLY | O_NONBLOCK);
    if (writer >= 0)
      ::close(writer);
    return "blocked on the FIFO, then: " + loaded.get();
  }
  return loaded.get();
}

TEST(FabricTopologyBounds, AFifoIsRefusedAtOnceByName) {
  testing::TempDir dir("topology_fifo");
  const std::string fifo = dir.path() + "/fabric.topo";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  const auto error = load_error(fifo, fifo);
  EXPECT_EQ(error.find(fifo + ": a FIFO, not a regular file"), 0u) << error;
  EXPECT_NE(error.find("fix:"), std::string::npos) << error;
}

// A device has no end: /dev/zero was read until allocation failed.
TEST(FabricTopologyBounds, ADeviceIsRefusedByName) {
  try {
    load_topology("/dev/zero");
    FAIL() << "no InputError";
  } catch (const InputError &e) {
    EXPECT_EQ(e.where(), "/dev/zero");
    EXPECT_NE(e.problem().find("a device, not a regular file"), std::string::npos) << e.what();
  }
}

// An lldpctl directory whose table is a FIFO: the table is refused by its path.
TEST(FabricTopologyBounds, AFifoAmongTheLldpTablesIsRefusedByItsPath) {
  testing::TempDir dir("topology_lldp_fifo");
  std::filesystem::create_directories(dir.path() + "/hosts");
  const std::string fifo = dir.path() + "/hosts/gpu01.json";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  const auto error = load_error(dir.path(), fifo);
  EXPECT_EQ(error.find(fifo + ": a FIFO, not a regular file"), 0u) << error;
}

// A node name that is a list threw yaml-cpp's TypedBadConversion past every handler.
TEST(FabricTopologyBounds, AYamlNameThatIsAListIsAnInputErrorAtItsLine) {
  try {
    read_topology_yaml("nodes:\n  ? [a]\n  : [{nic: x, leaf: y}]\n", "f.yaml");
    FAIL() << "no InputError";
  } catch (const InputError &e) {
    EXPECT_EQ(e.where(), "f.yaml:2");
    EXPECT_NE(e.problem().find("not a topology: bad conversion"), std::string::npos) << e.what();
  }
}

} // namespace
} // namespace railgauge::rdma::fabric
