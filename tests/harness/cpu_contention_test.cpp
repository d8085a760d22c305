// How busy other work kept the machine, from /proc files written here: the readings, the CPUs
// other processes and the hypervisor took between two of them, and what a noisy run says.
#include <chrono>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <string>

#include <gtest/gtest.h>

#include "harness/cpu_contention.h"

#include <unistd.h>

namespace railgauge {
namespace {

class CpuContentionTest : public ::testing::Test {
protected:
  void SetUp() override {
    root_ = std::filesystem::temp_directory_path() /
            ("railgauge_cpu_contention_" + std::to_string(::getpid()));
    std::filesystem::create_directories(root_ / "self");
  }
  void TearDown() override { std::filesystem::remove_all(root_); }
  // /proc/stat's first line in ticks, and /proc/self/stat with a command name of spaces and
  // parentheses (utime and stime its 14th and 15th fields).
  void write(long user, long system, long idle, long steal, long own_user, long own_system) {
    std::ofstream(root_ / "stat") << "cpu  " << user << " 0 " << system << " " << idle << " 5 0 0 "
                                  << steal << " 0 0\ncpu0 1 2 3 4 5 6 7 8 9 10\n";
    std::ofstream(root_ / "self" / "stat")
        << "4242 (rail gauge (x)) R 1 1 1 0 -1 4194560 1 0 0 0 " << own_user << " " << own_system
        << " 0 0 20 0 3 0 1 1 1\n";
  }
  std::filesystem::path root_;
};

TEST_F(CpuContentionTest, OtherProcessesAreTheBusyTimeLessThisProcesss) {
  const double hz = static_cast<double>(::sysconf(_SC_CLK_TCK));
  write(1000, 500, 9000, 20, 300, 100);
  const auto before = read_cpu_times(root_.string());
  ASSERT_TRUE(before);
  EXPECT_DOUBLE_EQ(before->busy_s, 1500 / hz);
  EXPECT_DOUBLE_EQ(before->steal_s, 20 / hz);
  EXPECT_DOUBLE_EQ(before->self_s, 400 / hz);
  // Over 10 s: 30 s of busy CPU time, 12 s of it this process's, 3 s stolen.
  write(1000 + long(25 * hz), 500 + long(5 * hz), 9000, 20 + long(3 * hz), 300 + long(10 * hz),
        100 + long(2 * hz));
  const auto c = cpu_contention(before, read_cpu_times(root_.string()), 10.0, 2);
  ASSERT_TRUE(c);
  EXPECT_NEAR(c->other_cpus, 1.8, 1e-9);
  EXPECT_NEAR(c->steal_cpus, 0.3, 1e-9);
  EXPECT_EQ(c->text(), "other processes kept 1.8 of 2 CPUs busy on average while the points "
                       "ran; the hypervisor took 0.3 CPUs for other guests");
  EXPECT_EQ(c->to_json().at("other_processes_cpus"), c->other_cpus);
  EXPECT_EQ(c->text(true).substr(0, 73),
            "other processes (this run's other ranks on this host among them) kept 1.8");
}

TEST_F(CpuContentionTest, AnIdleMachineSaysNothingAndAnUnreadableOneIsNotGuessed) {
  write(1000, 500, 9000, 20, 300, 100);
  const auto same = read_cpu_times(root_.string());
  const auto c = cpu_contention(same, same, 5.0, 2);
  ASSERT_TRUE(c);
  EXPECT_EQ(c->text(), "");
  EXPECT_FALSE(cpu_contention(std::nullopt, same, 5.0, 2));
  EXPECT_FALSE(cpu_contention(same, same, 0.0, 2));
  std::filesystem::remove(root_ / "self" / "stat");
  EXPECT_FALSE(read_cpu_times(root_.string()));
  std::ofstream(root_ / "self" / "stat") << "4242 (x) R 1\n"; // cut short
  EXPECT_FALSE(read_cpu_times(root_.string()));
  EXPECT_FALSE(read_cpu_times((root_ / "missing").string()));
}

TEST(CpuContention, ThisProcesssWorkShowsAsItsOwnOnThisMachine) {
  const auto before = read_cpu_times();
  ASSERT_TRUE(before) << "Linux's /proc/stat and /proc/self/stat";
  // 0.3 s of this process's CPU time (std::clock, however loaded the machine is; at most 20 s of
  // wall time): its own, and the machine's busy time grows by as much.
  const std::clock_t cpu_start = std::clock();
  const auto start = std::chrono::steady_clock::now();
  volatile double x = 0;
  while (std::clock() - cpu_start < CLOCKS_PER_SEC * 3 / 10 &&
         std::chrono::steady_clock::now() - start < std::chrono::seconds(20))
    x = x + 1;
  const auto after = read_cpu_times();
  ASSERT_TRUE(after);
  EXPECT_GT(after->self_s - before->self_s, 0.2);
  EXPECT_GT(after->busy_s - before->busy_s, 0.2);
}

} // namespace
} // namespace railgauge
