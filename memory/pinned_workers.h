#pragma once
// A persistent pool of worker threads, each pinned to one processing unit, that run one job
// together and are released and joined with std::barrier.
//
// Why persistent: creating and pinning threads costs tens of microseconds, more than one call
// of a kernel over an L1-sized array; the pool lives across the points of a sweep and one call
// costs two barrier phases. The caller's thread is not a worker, so its affinity is never
// changed; it sleeps in the barrier while the workers run.
//
//   PinnedWorkers pool(topology, {0, 2, 4});
//   pool.run([&](unsigned worker) { run_slice(kernel, arrays, begin[worker], end[worker]); });
#include <barrier>
#include <functional>
#include <string>
#include <thread>
#include <vector>

#include <hwloc.h>

namespace railgauge::memory {

class PinnedWorkers {
public:
  using Job = std::function<void(unsigned worker)>;

  // One worker per entry of `pus` (OS indexes), bound there with hwloc_set_cpubind(THREAD).
  // Throws BackendError, with the workers stopped, when a worker cannot be bound.
  PinnedWorkers(hwloc_topology_t topology, std::vector<unsigned> pus);
  PinnedWorkers(const PinnedWorkers &) = delete;
  PinnedWorkers &operator=(const PinnedWorkers &) = delete;
  ~PinnedWorkers();

  unsigned size() const { return static_cast<unsigned>(pus_.size()); }
  const std::vector<unsigned> &pus() const { return pus_; }

  // Runs job(w) on every worker w at once and returns when all have finished. Jobs must not
  // throw (the kernels do not); one run at a time.
  void run(const Job &job);

private:
  void loop(unsigned worker);
  void stop() noexcept;

  hwloc_topology_t topology_;
  std::vector<unsigned> pus_;
  std::barrier<> start_;
  std::barrier<> done_;
  const Job *job_ = nullptr; // published to the workers by the start barrier
  bool stopping_ = false;
  std::vector<std::string> bind_errors_; // one slot per worker, empty when bound
  std::vector<std::thread> threads_;
};

} // namespace railgauge::memory
