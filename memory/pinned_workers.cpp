#include "memory/pinned_workers.h"

#include <cerrno>
#include <cstring>
#include <memory>

#include <fmt/format.h>

#include "harness/error.h"

namespace railgauge::memory {

PinnedWorkers::PinnedWorkers(hwloc_topology_t topology, std::vector<unsigned> pus)
    : topology_(topology), pus_(std::move(pus)),
      start_(static_cast<std::ptrdiff_t>(pus_.size() + 1)),
      done_(static_cast<std::ptrdiff_t>(pus_.size() + 1)), bind_errors_(pus_.size()) {
  if (pus_.empty())
    throw BackendError("PinnedWorkers: no processing units to run on");
  threads_.reserve(pus_.size());
  for (unsigned w = 0; w < pus_.size(); ++w)
    threads_.emplace_back([this, w] { loop(w); });
  // Each worker binds itself before its first phase; an empty job waits for all of them.
  run([](unsigned) {});
  for (unsigned w = 0; w < pus_.size(); ++w) {
    if (!bind_errors_[w].empty()) {
      stop();
      throw BackendError(bind_errors_[w]);
    }
  }
}

PinnedWorkers::~PinnedWorkers() { stop(); }

void PinnedWorkers::run(const Job &job) {
  job_ = &job;
  start_.arrive_and_wait();
  done_.arrive_and_wait();
  job_ = nullptr;
}

void PinnedWorkers::stop() noexcept {
  if (threads_.empty())
    return;
  stopping_ = true;
  start_.arrive_and_wait();
  for (auto &t : threads_)
    t.join();
  threads_.clear();
}

void PinnedWorkers::loop(unsigned worker) {
  std::unique_ptr<hwloc_bitmap_s, decltype(&hwloc_bitmap_free)> set(hwloc_bitmap_alloc(),
                                                                     &hwloc_bitmap_free);
  hwloc_bitmap_only(set.get(), pus_[worker]);
  if (hwloc_set_cpubind(topology_, set.get(), HWLOC_CPUBIND_THREAD) != 0)
    bind_errors_[worker] =
        fmt::format("hwloc_set_cpubind(PU {}, HWLOC_CPUBIND_THREAD) failed: {} ({})",
                    pus_[worker], std::strerror(errno), errno);
  while (true) {
    start_.arrive_and_wait();
    if (stopping_)
      return;
    (*job_)(worker);
    done_.arrive_and_wait();
  }
}

} // namespace railgauge::memory
