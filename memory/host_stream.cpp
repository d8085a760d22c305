#include "memory/host_stream.h"

#include <algorithm>
#include <bit>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "harness/device_fields.h"
#include "harness/host_buffer.h"
#include "harness/run_context.h"
#include "harness/waiver.h"
#include "records/memory_point.h"
#include "records/memory_record.h"

namespace railgauge::memory {
namespace {

constexpr std::int64_t kKiB = 1024;
constexpr std::int64_t kGiB = kKiB * kKiB * kKiB;
constexpr std::size_t kPageElements = 4096 / sizeof(double);
// Arrays may take at most this share of the node's memory: the rest is headroom for the OS,
// the page tables and whatever else runs there.
constexpr double kMaxNodeMemoryShare = 0.75;

std::optional<NumaNode> find_node(const Topology &topology, std::int64_t os_index) {
  for (auto &node : topology.numa_nodes())
    if (static_cast<std::int64_t>(node.os_index) == os_index)
      return node;
  return std::nullopt;
}

// Which clone of the kernels the ifunc resolver picks here: the same test, in the same order
// of preference, as the target_clones list in host_kernels.cpp.
std::string vector_isa() {
#if defined(__x86_64__)
  if (__builtin_cpu_supports("avx512f"))
    return "avx512f";
  if (__builtin_cpu_supports("avx2"))
    return "avx2";
#endif
  return "default";
}

// One slot per worker, a cache line each, so that workers storing their results do not
// share lines.
struct alignas(64) WorkerResult {
  double sum = 0;
  std::size_t wrong = 0;
};

} // namespace

std::vector<std::int64_t> default_sizes_bytes(const Topology &topology) {
  std::uint64_t l1_bytes = 0;
  for (const auto &level : topology.caches())
    if (level.depth == 1 && level.type != 'i')
      l1_bytes = level.size_bytes;
  std::uint64_t first = 16 * kKiB;
  if (l1_bytes > 0)
    first = std::min(first, std::bit_floor(l1_bytes));
  const std::uint64_t last = std::bit_ceil(std::max<std::uint64_t>(
      8 * topology.last_level_cache_bytes(), static_cast<std::uint64_t>(kGiB)));
  std::vector<std::int64_t> sizes;
  for (std::uint64_t s = first; s <= last; s *= 2)
    sizes.push_back(static_cast<std::int64_t>(s));
  return sizes;
}

std::vector<std::pair<std::size_t, std::size_t>> split_slices(std::size_t elements,
                                                              unsigned workers) {
  const std::size_t pages = (elements + kPageElements - 1) / kPageElements;
  const std::size_t base = pages / workers, extra = pages % workers;
  std::vector<std::pair<std::size_t, std::size_t>> slices;
  for (std::size_t w = 0; w < workers; ++w) {
    const std::size_t first_page = w * base + std::min(w, extra);
    const std::size_t count = base + (w < extra ? 1 : 0);
    slices.emplace_back(std::min(first_page * kPageElements, elements),
                        std::min((first_page + count) * kPageElements, elements));
  }
  return slices;
}

std::vector<Axis> HostStreamBenchmark::axes() const {
  std::vector<AxisValue> sizes;
  for (std::int64_t s = 16 * kKiB; s <= kGiB; s *= 2)
    sizes.emplace_back(s);
  return {
      {record::kNumaNode,
       AxisType::integer,
       "NUMA node (OS index) that holds the arrays and whose cores run the threads; "
       "default: every node",
       {std::int64_t{0}},
       {}},
      {record::kThreads,
       AxisType::integer,
       "worker threads, one per physical core of the node, each pinned to one PU of its core; "
       "0 = every physical core of the node",
       {std::int64_t{0}},
       {}},
      {record::kSizeBytes,
       AxisType::bytes,
       "bytes PER ARRAY (read and write use 1 array, copy 2, triad 3); default: powers of two "
       "from inside L1 to at least 8x the last-level cache and at least 1 GiB",
       sizes,
       {}},
  };
}

std::vector<AxisValue> HostStreamBenchmark::defaults_here(const Axis &axis,
                                                          const RunContext &ctx) const {
  std::vector<AxisValue> values;
  if (axis.name == "size_bytes") {
    for (std::int64_t s : default_sizes_bytes(ctx.topology()))
      values.emplace_back(s);
  } else if (axis.name == "numa_node") {
    for (const auto &node : ctx.topology().numa_nodes())
      values.emplace_back(static_cast<std::int64_t>(node.os_index));
  }
  return values.empty() ? axis.defaults : values;
}

std::optional<std::string> HostStreamBenchmark::supported(const RunContext &ctx,
                                                          const Point &point) const {
  const Topology &topology = ctx.topology();
  if (!topology.is_this_machine())
    return "the topology was loaded from an XML file, not read from this machine: threads "
           "cannot be pinned nor memory bound by it";
  const std::int64_t node_index = point.integer(record::kNumaNode);
  const auto node = find_node(topology, node_index);
  if (!node) {
    std::vector<unsigned> indexes;
    for (const auto &n : topology.numa_nodes())
      indexes.push_back(n.os_index);
    return fmt::format("NUMA node {} does not exist here (nodes: {})", node_index,
                       fmt::join(indexes, ","));
  }
  if (node->core_pus.empty())
    return fmt::format("NUMA node {} has no CPU cores (a memory-only node): no thread can run "
                       "next to its memory",
                       node_index);
  const std::int64_t threads = point.integer(record::kThreads);
  if (threads < 0)
    return fmt::format("threads={} is negative (0 = one per physical core)", threads);
  if (threads > static_cast<std::int64_t>(node->core_pus.size()))
    return fmt::format("threads={} but NUMA node {} has {} physical cores (one thread per core)",
                       threads, node_index, node->core_pus.size());
  const std::int64_t size_bytes = point.integer(record::kSizeBytes);
  if (size_bytes <= 0 || size_bytes % static_cast<std::int64_t>(sizeof(double)) != 0)
    return fmt::format("size_bytes={} is not a positive multiple of 8 (arrays of doubles)",
                       size_bytes);
  const double total_bytes = static_cast<double>(size_bytes) * arrays_used(kernel_);
  if (node->memory_bytes > 0 &&
      total_bytes > kMaxNodeMemoryShare * static_cast<double>(node->memory_bytes))
    // The sweep's largest arrays do not fit every machine: nothing is wrong with a node whose
    // memory is smaller than a point, so a profile does not count the point as missing.
    return not_applicable(
        fmt::format("the arrays need {} bytes, more than {:.0f}% of NUMA node {}'s {} bytes",
                    total_bytes, 100 * kMaxNodeMemoryShare, node_index, node->memory_bytes));
  return std::nullopt;
}

Outcome HostStreamBenchmark::run(RunContext &ctx, const Point &point) {
  if (auto why = supported(ctx, point))
    return Outcome::waived(*why);
  const Topology &topology = ctx.topology();
  const NumaNode node = *find_node(topology, point.integer(record::kNumaNode));
  const auto threads = point.integer(record::kThreads) > 0
                           ? static_cast<std::size_t>(point.integer(record::kThreads))
                           : node.core_pus.size();
  const std::vector<unsigned> pus(node.core_pus.begin(),
                                  node.core_pus.begin() + static_cast<std::ptrdiff_t>(threads));
  // A team per point: starting a thread per core costs microseconds, far below a point's
  // budget, and the team never outlives the topology its bindings come from.
  PinnedWorkers team(topology.get(), pus);
  // The calling thread is member 0: pinned for the point, its old binding restored after.
  const auto caller = team.bind_caller();

  // Allocate (bound to the node, untouched), then first-touch each slice from its worker.
  const auto array_bytes = static_cast<std::size_t>(point.integer(record::kSizeBytes));
  std::vector<HostBuffer> buffers;
  for (int i = 0; i < arrays_used(kernel_); ++i)
    buffers.emplace_back(topology.get(), node.os_index, array_bytes);
  StreamArrays arrays;
  arrays.elements = array_bytes / sizeof(double);
  arrays.a = buffers[0].doubles();
  arrays.c = kernel_ == Kernel::copy ? buffers[1].doubles() : nullptr;
  if (kernel_ == Kernel::triad) {
    arrays.b = buffers[1].doubles();
    arrays.c = buffers[2].doubles();
  }
  const auto slices = split_slices(arrays.elements, team.size());
  team.run([&](unsigned w) { seed_slice(kernel_, arrays, slices[w].first, slices[w].second); });

  // A pass over cache-sized arrays takes less than waking and joining the team, so one call
  // runs `passes` back-to-back passes over the slices (likwid-bench's iterations) until it moves
  // at least kMinBytesPerCall: the synchronisation becomes a small part of the call. Arrays of
  // DRAM size take one pass per call.
  const std::uint64_t bytes_per_pass = bytes_moved_per_call(kernel_, array_bytes);
  const std::uint64_t passes = std::max<std::uint64_t>(1, kMinBytesPerCall / bytes_per_pass);

  // The workers store their sums in `results`, which is read after the measurement, so the
  // compiler cannot drop the read kernel (run_slice is in another translation unit).
  std::vector<WorkerResult> results(team.size());
  const PinnedWorkers::Job call = [&](unsigned w) {
    for (std::uint64_t p = 0; p < passes; ++p)
      results[w].sum = run_slice(kernel_, arrays, slices[w].first, slices[w].second);
  };
  HostTimer timer;
  const Measurement measurement = ctx.measure(timer, [&] { team.run(call); });

  Outcome outcome;
  outcome.metrics = measurement.bandwidth_metrics(bytes_per_pass * passes);
  outcome.device = {{device::kNuma, node.os_index},
                    {device::kCpus, fmt::format("{}", fmt::join(pus, ","))}};
  record::MemoryPoint written;
  written.threads_used = static_cast<std::int64_t>(pus.size());
  written.total_bytes = static_cast<std::int64_t>(array_bytes * buffers.size());
  written.passes_per_call = static_cast<std::int64_t>(passes);
  written.vector_isa = vector_isa();
  written.write(outcome);
  if (!ctx.verify())
    return outcome;

  if (before_verify_)
    before_verify_(arrays);
  team.run([&](unsigned w) {
    results[w].wrong = count_wrong(kernel_, arrays, slices[w].first, slices[w].second);
  });
  std::size_t wrong = 0;
  std::vector<std::string> problems;
  for (std::size_t w = 0; w < results.size(); ++w) {
    wrong += results[w].wrong;
    const double expected = expected_read_sum(slices[w].first, slices[w].second);
    if (kernel_ == Kernel::read && results[w].sum != expected)
      problems.push_back(
          fmt::format("thread {} summed {} instead of {}", w, results[w].sum, expected));
  }
  written.wrong_elements = static_cast<std::int64_t>(wrong);
  written.write(outcome); // again, with what the check found
  if (wrong > 0)
    problems.insert(problems.begin(),
                    fmt::format("{} of {} elements hold wrong values", wrong, arrays.elements));
  outcome.conclude_data_check(problems);
  return outcome;
}

// Read: loads only, the sum kept per thread and checked against its closed form. Compare with
// likwid-bench's load kernel.
std::unique_ptr<HostStreamBenchmark> make_host_read() {
  return std::make_unique<HostStreamBenchmark>(
      Kernel::read, record::kHostRead,
      "Host DRAM read bandwidth per NUMA node: sum += a[i] over threads pinned one per core "
      "(GB/s, 1 array counted)");
}

// Write: normal (not non-temporal) stores, so the DRAM also reads every line before it is written
// (write-allocate), which is not counted. Compare with likwid-bench's store kernel.
std::unique_ptr<HostStreamBenchmark> make_host_write() {
  return std::make_unique<HostStreamBenchmark>(
      Kernel::write, record::kHostWrite,
      "Host DRAM write bandwidth per NUMA node: a[i] = s with normal stores over threads "
      "pinned one per core (GB/s, 1 array counted, write-allocate not counted)");
}

// Copy: STREAM's copy with normal stores; counts 2x the array (read a, write c) like STREAM and
// likwid-bench's copy kernel. Not memcpy: glibc's memcpy switches to non-temporal stores for large
// sizes.
std::unique_ptr<HostStreamBenchmark> make_host_copy() {
  return std::make_unique<HostStreamBenchmark>(
      Kernel::copy, record::kHostCopy,
      "Host DRAM copy bandwidth per NUMA node: c[i] = a[i] over threads pinned one per core "
      "(GB/s, 2 arrays counted, write-allocate not counted)");
}

// Triad: STREAM's triad; counts 3x the array (read b and c, write a). Compare with likwid-bench's
// stream kernel (A = B*s + C, the same traffic).
std::unique_ptr<HostStreamBenchmark> make_host_triad() {
  return std::make_unique<HostStreamBenchmark>(
      Kernel::triad, record::kHostTriad,
      "Host DRAM triad bandwidth per NUMA node: a[i] = b[i] + s*c[i] over threads pinned one "
      "per core (GB/s, 3 arrays counted, write-allocate not counted)");
}

} // namespace railgauge::memory
