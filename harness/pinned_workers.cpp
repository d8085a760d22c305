#include "harness/pinned_workers.h"

#include <system_error>

#include <cerrno>
#include <cstring>

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#endif

#include <fmt/format.h>

#include "harness/error.h"

namespace railgauge {
namespace {

// About a millisecond of spinning (a pause is 10-140 cycles) before a member sleeps.
constexpr int kSpins = 1 << 14;

void cpu_relax() {
#if defined(__x86_64__) || defined(__i386__)
  _mm_pause();
#endif
}

std::unique_ptr<hwloc_bitmap_s, void (*)(hwloc_bitmap_t)> make_bitmap() {
  return {hwloc_bitmap_alloc(), &hwloc_bitmap_free};
}

int bind_this_thread(hwloc_topology_t topology, unsigned pu) {
  auto set = make_bitmap();
  hwloc_bitmap_only(set.get(), pu);
  return hwloc_set_cpubind(topology, set.get(), HWLOC_CPUBIND_THREAD) == 0 ? 0 : errno;
}

std::string bind_error(unsigned pu, int err) {
  return fmt::format("hwloc_set_cpubind(PU {}, HWLOC_CPUBIND_THREAD) failed: {} ({})", pu,
                     std::strerror(err), err);
}

} // namespace

PinnedWorkers::CallerBinding::CallerBinding(hwloc_topology_t topology, unsigned pu)
    : topology_(topology), previous_(make_bitmap()) {
  if (hwloc_get_cpubind(topology_, previous_.get(), HWLOC_CPUBIND_THREAD) != 0)
    previous_.reset();
  if (const int err = bind_this_thread(topology_, pu))
    throw BackendError(bind_error(pu, err));
}

PinnedWorkers::CallerBinding::~CallerBinding() {
  if (previous_)
    hwloc_set_cpubind(topology_, previous_.get(), HWLOC_CPUBIND_THREAD);
}

PinnedWorkers::PinnedWorkers(hwloc_topology_t topology, std::vector<unsigned> pus)
    : topology_(topology), pus_(std::move(pus)), bind_errno_(pus_.size(), 0) {
  if (pus_.empty())
    throw BackendError("PinnedWorkers: no processing units to run on");
  threads_.reserve(pus_.size());
  try {
    for (unsigned m = 1; m < pus_.size(); ++m)
      threads_.emplace_back([this, m] { loop(m); });
  } catch (const std::system_error &e) {
    stop(); // join the members already started: a joinable std::thread would terminate
    throw BackendError(
        fmt::format("PinnedWorkers: cannot start {} threads: {}", pus_.size() - 1, e.what()));
  }
  // Every member binds itself before its first job; an empty job waits for all of them.
  run([](unsigned) {});
  for (unsigned m = 1; m < pus_.size(); ++m) {
    if (bind_errno_[m] != 0) {
      stop();
      throw BackendError(bind_error(pus_[m], bind_errno_[m]));
    }
  }
}

PinnedWorkers::~PinnedWorkers() { stop(); }

void PinnedWorkers::run(const Job &job) {
  job_ = &job;
  pending_.store(size() - 1, std::memory_order_relaxed);
  generation_.fetch_add(1, std::memory_order_release);
  generation_.notify_all(); // no system call unless a member sleeps
  job(0);
  unsigned left;
  for (int spin = 0; (left = pending_.load(std::memory_order_acquire)) != 0; ++spin) {
    if (spin < kSpins)
      cpu_relax();
    else
      pending_.wait(left, std::memory_order_acquire); // the last member notifies at 0
  }
  job_ = nullptr;
}

void PinnedWorkers::stop() noexcept {
  if (threads_.empty())
    return;
  stopping_.store(true, std::memory_order_release);
  generation_.fetch_add(1, std::memory_order_release);
  generation_.notify_all();
  for (auto &t : threads_)
    t.join();
  threads_.clear();
}

void PinnedWorkers::loop(unsigned member) {
  bind_errno_[member] = bind_this_thread(topology_, pus_[member]);
  std::uint64_t seen = 0;
  while (true) {
    std::uint64_t now;
    for (int spin = 0; (now = generation_.load(std::memory_order_acquire)) == seen; ++spin) {
      if (spin < kSpins)
        cpu_relax();
      else
        generation_.wait(seen, std::memory_order_acquire);
    }
    seen = now;
    if (stopping_.load(std::memory_order_acquire))
      return;
    (*job_)(member);
    if (pending_.fetch_sub(1, std::memory_order_acq_rel) == 1)
      pending_.notify_one();
  }
}

} // namespace railgauge
