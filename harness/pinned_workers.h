#pragma once
// A persistent team of threads, each pinned to one processing unit, that run one job together:
// the calling thread is member 0 and the pool's threads are members 1..n-1 (OpenMP's fork-join
// with the master participating).
//
// Why not a plain std::barrier: its waiters sleep in futex after a few spins, and waking a
// sleeping thread costs 5-50 us on a VM (an IPI through the hypervisor), more than one call of
// a kernel over an L1-sized slice. Members spin on an atomic generation counter for about a
// millisecond after each job and only then sleep (std::atomic::wait), so back-to-back calls
// cost a cache-line round trip and an idle team does not burn the cores for long. The caller
// takes part instead of waiting so that no core is spent on a spinning bystander.
//
// The caller must be pinned to pus()[0] while it uses the team (first touch and timing happen
// on it too): hold a CallerBinding, which restores the caller's previous binding when it goes.
//
//   PinnedWorkers team(topology, node.core_pus);
//   const auto bound = team.bind_caller();
//   team.run([&](unsigned member) { run_slice(kernel, arrays, begin[member], end[member]); });
#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <thread>
#include <vector>

#include <hwloc.h>

namespace railgauge {

class PinnedWorkers {
public:
  using Job = std::function<void(unsigned member)>;

  // Binds the calling thread to one PU; restores its previous binding on destruction.
  class CallerBinding {
  public:
    CallerBinding(hwloc_topology_t topology, unsigned pu);
    CallerBinding(const CallerBinding &) = delete;
    CallerBinding &operator=(const CallerBinding &) = delete;
    ~CallerBinding();

  private:
    hwloc_topology_t topology_;
    std::unique_ptr<hwloc_bitmap_s, void (*)(hwloc_bitmap_t)> previous_;
  };

  // One member per entry of `pus` (OS indexes); members 1.. are threads bound there with
  // hwloc_set_cpubind(THREAD). Throws BackendError, with the threads stopped, when one cannot
  // be bound.
  PinnedWorkers(hwloc_topology_t topology, std::vector<unsigned> pus);
  PinnedWorkers(const PinnedWorkers &) = delete;
  PinnedWorkers &operator=(const PinnedWorkers &) = delete;
  ~PinnedWorkers();

  unsigned size() const { return static_cast<unsigned>(pus_.size()); }
  const std::vector<unsigned> &pus() const { return pus_; }

  // Pins the calling thread to pus()[0] for as long as the result lives.
  CallerBinding bind_caller() const { return CallerBinding(topology_, pus_[0]); }

  // Runs job(m) on every member m at once (job(0) on the calling thread) and returns when all
  // have finished. Jobs must not throw (the kernels do not); one run at a time.
  void run(const Job &job);

private:
  void loop(unsigned member);
  void stop() noexcept;

  hwloc_topology_t topology_;
  std::vector<unsigned> pus_;
  const Job *job_ = nullptr; // published to the members by the generation counter
  alignas(64) std::atomic<std::uint64_t> generation_{0};
  alignas(64) std::atomic<unsigned> pending_{0}; // members 1.. still running the job
  std::atomic<bool> stopping_{false};
  std::vector<int> bind_errno_; // per member, 0 when bound
  std::vector<std::thread> threads_;
};

} // namespace railgauge
