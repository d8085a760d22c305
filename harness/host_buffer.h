#pragma once
// Host memory bound to one NUMA node (RAII, move-only; nvbandwidth's HostBuffer).
//
// hwloc_alloc_membind maps the pages and binds the range to the node without touching it, so
// that no page exists until the thread that will use it writes it first (first touch): the
// benchmarks seed each thread's slice from that thread. Freed with hwloc_free.
#include <cstddef>
#include <string>
#include <variant>
#include <vector>

#include <hwloc.h>

namespace railgauge {

class HostBuffer {
public:
  // Throws BackendError when the node does not exist or the allocation fails.
  HostBuffer(hwloc_topology_t topology, unsigned numa_os_index, std::size_t size_bytes);
  HostBuffer(HostBuffer &&other) noexcept;
  HostBuffer &operator=(HostBuffer &&other) noexcept;
  HostBuffer(const HostBuffer &) = delete;
  HostBuffer &operator=(const HostBuffer &) = delete;
  ~HostBuffer();

  double *doubles() const { return static_cast<double *>(data_); }

  // The NUMA nodes (OS indexes) the buffer's touched pages are on, as the kernel reports them
  // (hwloc_get_area_memlocation), or why it cannot say. The binding is a request: without
  // CAP_SYS_NICE in a container, or on a kernel without NUMA policy, the kernel may place pages
  // elsewhere and hwloc still returns memory, so a record states where the pages went.
  std::variant<std::vector<unsigned>, std::string> page_nodes() const;
  std::size_t size_bytes() const { return size_bytes_; }

private:
  void release() noexcept;
  hwloc_topology_t topology_ = nullptr;
  void *data_ = nullptr;
  std::size_t size_bytes_ = 0;
};

} // namespace railgauge
