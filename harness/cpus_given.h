#pragma once
// How many CPUs this process may run on (sched_getaffinity), at least 1. A BLAS library's own
// default is every CPU of the machine, which oversubscribes a process that taskset, cgroups,
// mpirun or Slurm confined to a few cores.
namespace railgauge {

int cpus_given();

} // namespace railgauge
