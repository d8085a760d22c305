// Who a run is: the node it names (SLURMD_NODENAME under Slurm) and a run id of its own.
#include <cstdlib>
#include <filesystem>
#include <optional>
#include <string>
#include <unistd.h>

#include <gtest/gtest.h>

#include "harness/error.h"
#include "harness/host_group.h"
#include "harness/manifest.h"
#include "harness/node_name.h"

namespace railgauge {
namespace {

// A node pair's imported log names its ranks' hosts in either order: one group name for both.
TEST(HostGroup, OnePairIsOneNameWhateverTheRankOrder) {
  EXPECT_EQ(host_group({"n014", "n013", "n014"}), "n013+n014");
  EXPECT_EQ(host_group({"n013", "", "n014"}), "n013+n014");
  EXPECT_EQ(host_group({}), "");
  EXPECT_EQ(hosts_of_group("n013+n014"), (std::vector<std::string>{"n013", "n014"}));
}

TEST(NodeName, SlurmsNodeNameWinsOverTheHostName) {
  EXPECT_EQ(node_name_from("n2", "vm"), "n2"); // a simulated node on host vm
  EXPECT_EQ(node_name_from("", "vm"), "vm");   // set but empty: not a name
  EXPECT_EQ(node_name_from(nullptr, "vm"), "vm");
  EXPECT_EQ(node_name_from(nullptr, nullptr), "");
}

// Sets an environment variable for one scope, and puts back what was there.
class ScopedEnv {
public:
  ScopedEnv(const char *name, const char *value) : name_(name) {
    if (const char *old = std::getenv(name))
      old_ = old;
    ::setenv(name, value, 1);
  }
  ~ScopedEnv() {
    if (old_)
      ::setenv(name_, old_->c_str(), 1);
    else
      ::unsetenv(name_);
  }

private:
  const char *name_;
  std::optional<std::string> old_;
};

TEST(NodeName, UnderSlurmTheRunsHostIsTheSlurmNode) {
  const ScopedEnv slurm("SLURMD_NODENAME", "railgauge-test-node7");
  EXPECT_EQ(this_node_name(), "railgauge-test-node7");
  EXPECT_EQ(this_host_name(), "railgauge-test-node7");
}

TEST(RunId, HoldsTheProcessSoThatRunsOfOneSecondOnOneHostDiffer) {
  // Two processes starting in the same second into two --out directories differ by their
  // process id; one process starting twice in one directory gets -2.
  const auto out = std::filesystem::temp_directory_path() /
                   ("railgauge_run_id_test_" + std::to_string(::getpid()));
  const auto first = create_run_directory(out.string(), "node07", 0);
  const auto second = create_run_directory(out.string(), "node07", 0);
  const std::string tail = "-node07-" + std::to_string(::getpid());
  EXPECT_TRUE(first.run_id.ends_with(tail)) << first.run_id;
  EXPECT_NE(second.run_id, first.run_id);
  EXPECT_TRUE(std::filesystem::is_directory(second.dir)) << second.dir;
  std::filesystem::remove_all(out);
}

// A run id longer than a file name may be: the error names the cause and a fix that can help,
// not "give --out a directory you can write" (said when 30 hosts' names made the id).
TEST(RunId, ANameTooLongIsSaidWithAFixThatHelps) {
  const auto out = std::filesystem::temp_directory_path() /
                   ("railgauge_run_id_long_" + std::to_string(::getpid()));
  try {
    create_run_directory(out.string(), std::string(300, 'h'), 0);
    FAIL() << "no InputError";
  } catch (const InputError &e) {
    EXPECT_NE(e.problem().find("File name too long"), std::string::npos) << e.what();
    EXPECT_NE(e.fix().find("shorter host name"), std::string::npos) << e.what();
    EXPECT_EQ(e.fix().find("a directory you can write"), std::string::npos) << e.what();
  }
  std::filesystem::remove_all(out);
}

} // namespace
} // namespace railgauge
