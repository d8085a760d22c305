#pragma once
// Host DRAM bandwidth per NUMA node: memory.host_read, host_write, host_copy and host_triad,
// one class told apart by its kernel (docs/memory.md).
//
// One point = arrays of `size_bytes` each, bound to NUMA node `numa_node`, split into one
// contiguous slice per thread; one thread per physical core of that node (or the first
// `threads` of them), each pinned to one PU of its core and first-touching its own slice. The
// calling thread is thread 0 (pinned for the point) and a persistent PinnedWorkers team runs
// the others. One call of the measured operation = every thread runs the kernel once over its
// slice and the caller waits for all of them, so a call's time is the slowest thread's.
//
// Bandwidth counts the bytes the kernel reads plus the bytes it writes, once, in
// bytes_moved_per_call() (memory/stream_kernel.h). Like STREAM, BabelStream and likwid-bench it
// does NOT count the write-allocate read that a normal store causes (the line is read into cache
// before it is written): copy reports 2x the array, but the DRAM moves 3x.
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "harness/benchmark.h"
#include "harness/pinned_workers.h"
#include "harness/topology.h"
#include "memory/host_kernels.h"

namespace railgauge::memory {

// Each call moves at least this much (several passes over cache-sized arrays), so that the
// team's synchronisation is a small part of a call.
inline constexpr std::uint64_t kMinBytesPerCall = std::uint64_t{64} << 20;

// Bytes are counted by arrays_used() and bytes_moved_per_call() in memory/stream_kernel.h.

// The default size sweep, bytes per array: powers of two from 16 KiB (or the L1 data cache rounded
// down to a power of two, when L1 is smaller) up to the first one at least 8x the last-level cache
// and at least 1 GiB, so the largest points are DRAM whatever the cache.
std::vector<std::int64_t> default_sizes_bytes(const Topology &topology);

// [begin, end) of each of `workers` slices of `elements`: contiguous, cut at 4 KiB page
// boundaries (512 doubles) so that no page is first-touched by two threads.
std::vector<std::pair<std::size_t, std::size_t>> split_slices(std::size_t elements,
                                                              unsigned workers);

class HostStreamBenchmark final : public KeyedBenchmark {
public:
  HostStreamBenchmark(Kernel kernel, std::string_view key, std::string_view description)
      : KeyedBenchmark(std::string(key), std::string(description)), kernel_(kernel) {}
  std::vector<Axis> axes() const override;
  std::vector<AxisValue> defaults_here(const Axis &axis, const RunContext &ctx) const override;
  std::optional<std::string> supported(const RunContext &ctx, const Point &point) const override;
  Outcome run(RunContext &ctx, const Point &point) override;

  // Test hook: called after the measurement and before verification, with the arrays, so a
  // test can corrupt them and check that the point fails.
  void set_before_verify(std::function<void(const StreamArrays &)> hook) {
    before_verify_ = std::move(hook);
  }

private:
  Kernel kernel_;
  // The team outlives a point: rebuilt only when the topology, node or PU list changes.
  std::function<void(const StreamArrays &)> before_verify_;
};

std::unique_ptr<HostStreamBenchmark> make_host_read();
std::unique_ptr<HostStreamBenchmark> make_host_write();
std::unique_ptr<HostStreamBenchmark> make_host_copy();
std::unique_ptr<HostStreamBenchmark> make_host_triad();

} // namespace railgauge::memory
