#pragma once
// How many CPUs this process may run on (sched_getaffinity), at least 1. A BLAS library's own
// default is every CPU of the machine, which oversubscribes a process that taskset, cgroups,
// mpirun or Slurm confined to a few cores.
#include <cstddef>
#include <optional>

namespace railgauge {

class Topology;

int cpus_given();

// Lets the calling thread run on any CPU its cgroup allows (the kernel drops the others from
// the mask), undoing the binding it inherited from the thread that created it. For a helper
// thread that must not share the one core a measuring thread is bound to (a telemetry sampler
// beside a pageable copy's staging thread). Returns errno, 0 on success.
int unbind_this_thread();

// Processes of this job on this host, from the launcher's environment (Open MPI, MPICH, Slurm);
// 1 when none says. With cpus_given(), whether ranks have cores of their own.
int ranks_on_this_host();
// The same, nullopt when no launcher says (processes started by hand, srun without
// --ntasks-per-node): what only a known count may decide.
std::optional<int> launcher_ranks_on_this_host();

// Whether `ranks` processes of `cpus_per_rank` CPUs each can hold their CPUs apart on a host of
// `host_core_count` physical cores; where the product exceeds the cores, their masks overlap. With
// no core count (0) neither can be said, and each caller names which way it leans.
enum class RankCpus { own, shared, unknown };
RankCpus rank_cpus(int ranks, int cpus_per_rank, std::size_t host_core_count);
// The physical cores over every NUMA node of `topology`; 0 where it lists none.
std::size_t host_cores(const Topology &topology);

} // namespace railgauge
