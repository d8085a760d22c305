#pragma once
// The CPU's free-running counter, read in a few instructions and no system call: the TSC on
// x86-64, the virtual counter (CNTVCT_EL0) on AArch64, the steady clock elsewhere. perftest
// stamps its iterations the same way (get_cycles()).
//
// Why not the steady clock: clock_gettime() stays in user space only where the kernel's
// clocksource is the TSC (or the arch timer). Elsewhere it is a system call that reads a
// device: a QEMU TCG guest's clocksource is the HPET (no usable TSC), and some cloud VMs fall
// back to hpet or xen. There one read cost a good part of a Soft-RoCE round trip, and a
// per-call timer reads once per call.
#include <chrono>
#include <cstdint>

#if defined(__x86_64__)
#include <x86intrin.h>
#endif

namespace railgauge::rdma {

inline std::uint64_t read_cycle_counter() {
#if defined(__x86_64__)
  return __rdtsc();
#elif defined(__aarch64__)
  std::uint64_t ticks;
  asm volatile("mrs %0, cntvct_el0" : "=r"(ticks));
  return ticks;
#else
  return static_cast<std::uint64_t>(std::chrono::steady_clock::now().time_since_epoch().count());
#endif
}

} // namespace railgauge::rdma
