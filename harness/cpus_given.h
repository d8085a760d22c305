#pragma once
// How many CPUs this process may run on (sched_getaffinity), at least 1. A BLAS library's own
// default is every CPU of the machine, which oversubscribes a process that taskset, cgroups,
// mpirun or Slurm confined to a few cores.
namespace railgauge {

int cpus_given();

// Lets the calling thread run on any CPU its cgroup allows (the kernel drops the others from
// the mask), undoing the binding it inherited from the thread that created it. For a helper
// thread that must not share the one core a measuring thread is bound to (a telemetry sampler
// beside a pageable copy's staging thread). Returns errno, 0 on success.
int unbind_this_thread();

} // namespace railgauge
