#include "harness/host_buffer.h"

#include <cerrno>
#include <cstring>
#include <utility>

#include <fmt/format.h>

#include "harness/error.h"

namespace railgauge {

HostBuffer::HostBuffer(hwloc_topology_t topology, unsigned numa_os_index, std::size_t size_bytes)
    : topology_(topology), size_bytes_(size_bytes) {
  hwloc_obj_t node = hwloc_get_numanode_obj_by_os_index(topology, numa_os_index);
  if (!node)
    throw BackendError(fmt::format("hwloc: no NUMA node with OS index {}", numa_os_index));
  data_ = hwloc_alloc_membind(topology, size_bytes, node->nodeset, HWLOC_MEMBIND_BIND,
                              HWLOC_MEMBIND_BYNODESET);
  if (!data_)
    throw BackendError(fmt::format(
        "hwloc_alloc_membind({} bytes, NUMA node {}, HWLOC_MEMBIND_BIND) failed: {} ({})",
        size_bytes, numa_os_index, std::strerror(errno), errno));
}

std::variant<std::vector<unsigned>, std::string> HostBuffer::page_nodes() const {
  hwloc_nodeset_t nodes = hwloc_bitmap_alloc();
  if (!nodes)
    return std::string("hwloc_bitmap_alloc failed");
  const int status =
      hwloc_get_area_memlocation(topology_, data_, size_bytes_, nodes, HWLOC_MEMBIND_BYNODESET);
  const int error = errno;
  std::vector<unsigned> found;
  if (status == 0)
    for (int i = hwloc_bitmap_first(nodes); i >= 0; i = hwloc_bitmap_next(nodes, i))
      found.push_back(static_cast<unsigned>(i));
  hwloc_bitmap_free(nodes);
  if (status != 0)
    return fmt::format("hwloc_get_area_memlocation failed: {} ({})", std::strerror(error), error);
  if (found.empty())
    return std::string("the kernel reported no node for the buffer's pages (none touched yet?)");
  return found;
}

HostBuffer::HostBuffer(HostBuffer &&other) noexcept
    : topology_(other.topology_), data_(std::exchange(other.data_, nullptr)),
      size_bytes_(std::exchange(other.size_bytes_, 0)) {}

HostBuffer &HostBuffer::operator=(HostBuffer &&other) noexcept {
  if (this != &other) {
    release();
    topology_ = other.topology_;
    data_ = std::exchange(other.data_, nullptr);
    size_bytes_ = std::exchange(other.size_bytes_, 0);
  }
  return *this;
}

HostBuffer::~HostBuffer() { release(); }

void HostBuffer::release() noexcept {
  if (data_)
    hwloc_free(topology_, data_, size_bytes_);
  data_ = nullptr;
}

} // namespace railgauge
