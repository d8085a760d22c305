// The CPUs a process is given, and a helper thread's release from the core its creator is bound
// to (the GPU telemetry sampler beside a bound copy thread).
#include <sched.h>

#include <thread>

#include <gtest/gtest.h>

#include "harness/cpus_given.h"

namespace railgauge {
namespace {

int cpus_of_this_thread() {
  cpu_set_t set;
  CPU_ZERO(&set);
  EXPECT_EQ(sched_getaffinity(0, sizeof set, &set), 0);
  return CPU_COUNT(&set);
}

TEST(CpusGiven, CountsTheAffinityMask) { EXPECT_EQ(cpus_given(), cpus_of_this_thread()); }

TEST(CpusGiven, AThreadBornBoundIsUnboundToEveryAllowedCpu) {
  const int allowed = cpus_of_this_thread();
  int born_with = 0, after = 0, err = -1;
  std::thread creator([&] {
    // The creator binds itself to its first allowed CPU, as a measuring thread does.
    cpu_set_t mine, one;
    CPU_ZERO(&mine);
    CPU_ZERO(&one);
    ASSERT_EQ(sched_getaffinity(0, sizeof mine, &mine), 0);
    for (int cpu = 0; cpu < CPU_SETSIZE; ++cpu)
      if (CPU_ISSET(cpu, &mine)) {
        CPU_SET(cpu, &one);
        break;
      }
    ASSERT_EQ(sched_setaffinity(0, sizeof one, &one), 0);
    std::thread helper([&] {
      born_with = cpus_of_this_thread();
      err = unbind_this_thread();
      after = cpus_of_this_thread();
    });
    helper.join();
  });
  creator.join();
  EXPECT_EQ(born_with, 1) << "a new thread inherits its creator's binding";
  EXPECT_EQ(err, 0);
  // At least the CPUs this process was given; more where a taskset narrower than the cgroup
  // started it (the sampler may then run on the cgroup's other CPUs, which is harmless).
  EXPECT_GE(after, allowed) << "unbound: every CPU the cgroup allows";
}

// Ranks hold their CPUs apart while ranks x CPUs fit the cores; a host with no core count says
// neither, so that each caller leans its own way (lockstep waits cold, a spinning TCP end is
// refused).
TEST(CpusGiven, RanksShareTheCoresOnlyPastTheirCountAndUnknownCoresSayNeither) {
  EXPECT_EQ(rank_cpus(4, 2, 8), RankCpus::own);
  EXPECT_EQ(rank_cpus(1, 1, 1), RankCpus::own);
  EXPECT_EQ(rank_cpus(5, 2, 8), RankCpus::shared);
  EXPECT_EQ(rank_cpus(1, 1, 0), RankCpus::unknown);
  EXPECT_EQ(rank_cpus(8, 4, 0), RankCpus::unknown);
}

} // namespace
} // namespace railgauge
