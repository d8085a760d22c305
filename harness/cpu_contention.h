#pragma once
// How busy other processes kept this machine's CPUs while a run measured: a noisy point on a
// machine that was doing other work says so about the machine, not the node. Read from the
// kernel's accounting (/proc/stat: every CPU's busy and stolen time; /proc/self/stat: this
// process's), so it needs no sampling thread: two readings, at the run's start and end.
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

namespace railgauge {

// CPU seconds since boot: every CPU busy (user, nice, system, irq, softirq), taken by the
// hypervisor for other guests (steal), and this process's own (user and system, every thread).
struct CpuTimes {
  double busy_s = 0, steal_s = 0, self_s = 0;
};

// nullopt where `proc_root`'s stat files are missing or unreadable (not Linux, a sandbox).
std::optional<CpuTimes> read_cpu_times(const std::string &proc_root = "/proc");

// Between two readings `wall_s` apart: how many CPUs other processes (and the hypervisor) kept
// busy on average. Other ranks of the run on this host count as other processes, and so does
// kernel work the run causes outside its own process (a loopback peer's softirqs).
struct CpuContention {
  double other_cpus = 0, steal_cpus = 0;
  int cpus = 0; // the CPUs the kernel accounts (online)
  double wall_s = 0;

  nlohmann::json to_json() const;
  // "other processes kept 1.8 of 2 CPUs busy on average while the points ran", with the
  // hypervisor's share where it took any; "" where neither reached a tenth of a CPU. With
  // `several_ranks` it says that the run's other ranks on this host are among them.
  std::string text(bool several_ranks = false) const;
};
std::optional<CpuContention> cpu_contention(const std::optional<CpuTimes> &before,
                                            const std::optional<CpuTimes> &after, double wall_s,
                                            int cpus);

} // namespace railgauge
