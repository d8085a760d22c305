#include "harness/cpus_given.h"

#include <sched.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>

#include "harness/topology.h"

namespace railgauge {

int cpus_given() {
  cpu_set_t set;
  CPU_ZERO(&set);
  if (sched_getaffinity(0, sizeof(set), &set) != 0)
    return 1;
  return std::max(1, CPU_COUNT(&set));
}

int unbind_this_thread() {
  cpu_set_t every;
  CPU_ZERO(&every);
  for (int cpu = 0; cpu < CPU_SETSIZE; ++cpu)
    CPU_SET(cpu, &every);
  return sched_setaffinity(0, sizeof(every), &every) == 0 ? 0 : errno;
}

std::optional<int> launcher_ranks_on_this_host() {
  for (const char *name :
       {"OMPI_COMM_WORLD_LOCAL_SIZE", "MPI_LOCALNRANKS", "SLURM_NTASKS_PER_NODE"})
    if (const char *local = std::getenv(name))
      return std::max(1, std::atoi(local));
  return std::nullopt;
}

int ranks_on_this_host() { return launcher_ranks_on_this_host().value_or(1); }

RankCpus rank_cpus(int ranks, int cpus_per_rank, std::size_t host_core_count) {
  if (host_core_count == 0)
    return RankCpus::unknown;
  return static_cast<std::size_t>(ranks) * static_cast<std::size_t>(cpus_per_rank) <=
                 host_core_count
             ? RankCpus::own
             : RankCpus::shared;
}

std::size_t host_cores(const Topology &topology) {
  std::size_t cores = 0;
  for (const auto &node : topology.numa_nodes())
    cores += node.core_pus.size();
  return cores;
}

} // namespace railgauge
