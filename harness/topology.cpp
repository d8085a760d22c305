#include "harness/topology.h"

#include <cstdlib>
#include <memory>
#include <utility>

#include <fmt/format.h>

#include "harness/error.h"

namespace railgauge {
namespace {

hwloc_topology_t init_topology() {
  hwloc_topology_t topo = nullptr;
  if (hwloc_topology_init(&topo) != 0)
    throw BackendError("hwloc_topology_init failed");
  // Keep PCI devices and OS devices (cuda0, mlx5_0, ...) for the GPU/NIC map; drop the
  // bridges nobody has devices under.
  hwloc_topology_set_io_types_filter(topo, HWLOC_TYPE_FILTER_KEEP_IMPORTANT);
  return topo;
}

} // namespace

Topology Topology::load_this_machine() {
  hwloc_topology_t topo = init_topology();
  // Only PCI and the OS devices under it are wanted. hwloc's GL plugin opens X displays (slow,
  // and it can block on a forwarded display) and its OpenCL plugin loads every ICD; both are
  // dlopen'ed and closed again, whose leftover thread-local storage has crashed
  // LeakSanitizer's exit scan.
  for (const char *unwanted : {"gl", "opencl"})
    hwloc_topology_set_components(topo, HWLOC_TOPOLOGY_COMPONENTS_FLAG_BLACKLIST, unwanted);
  if (hwloc_topology_load(topo) != 0) {
    hwloc_topology_destroy(topo);
    throw BackendError("hwloc_topology_load failed for this machine");
  }
  return Topology(topo, true);
}

Topology Topology::load_xml(const std::string &path) {
  hwloc_topology_t topo = init_topology();
  if (hwloc_topology_set_xml(topo, path.c_str()) != 0 || hwloc_topology_load(topo) != 0) {
    hwloc_topology_destroy(topo);
    throw InputError("cannot load the hwloc XML topology", path,
                     "give a file written by `lstopo --of xml` (hwloc 2.x)");
  }
  return Topology(topo, false);
}

Topology::Topology(Topology &&other) noexcept
    : topo_(std::exchange(other.topo_, nullptr)), this_machine_(other.this_machine_) {}

Topology &Topology::operator=(Topology &&other) noexcept {
  if (this != &other) {
    if (topo_)
      hwloc_topology_destroy(topo_);
    topo_ = std::exchange(other.topo_, nullptr);
    this_machine_ = other.this_machine_;
  }
  return *this;
}

Topology::~Topology() {
  if (topo_)
    hwloc_topology_destroy(topo_);
}

std::string bitmap_list(hwloc_const_bitmap_t bitmap) {
  char *text = nullptr;
  if (hwloc_bitmap_list_asprintf(&text, bitmap) < 0 || !text)
    return "";
  std::unique_ptr<char, decltype(&std::free)> owned(text, &std::free);
  return owned.get();
}

std::vector<NumaNode> Topology::numa_nodes() const {
  std::vector<NumaNode> nodes;
  const int n = hwloc_get_nbobjs_by_type(topo_, HWLOC_OBJ_NUMANODE);
  for (int i = 0; i < n; ++i) {
    hwloc_obj_t numa = hwloc_get_obj_by_type(topo_, HWLOC_OBJ_NUMANODE, static_cast<unsigned>(i));
    NumaNode node;
    node.os_index = numa->os_index;
    node.memory_bytes = numa->attr ? numa->attr->numanode.local_memory : 0;
    node.cpuset = bitmap_list(numa->cpuset);
    const int cores = hwloc_get_nbobjs_inside_cpuset_by_type(topo_, numa->cpuset, HWLOC_OBJ_CORE);
    for (int c = 0; c < cores; ++c) {
      hwloc_obj_t core = hwloc_get_obj_inside_cpuset_by_type(topo_, numa->cpuset, HWLOC_OBJ_CORE,
                                                             static_cast<unsigned>(c));
      hwloc_obj_t pu = hwloc_get_obj_inside_cpuset_by_type(topo_, core->cpuset, HWLOC_OBJ_PU, 0);
      if (pu)
        node.core_pus.push_back(pu->os_index);
    }
    nodes.push_back(std::move(node));
  }
  return nodes;
}

std::vector<CacheLevel> Topology::caches() const {
  std::vector<CacheLevel> levels;
  for (hwloc_obj_type_t type : {HWLOC_OBJ_L1CACHE, HWLOC_OBJ_L2CACHE, HWLOC_OBJ_L3CACHE,
                                HWLOC_OBJ_L4CACHE, HWLOC_OBJ_L5CACHE}) {
    const int n = hwloc_get_nbobjs_by_type(topo_, type);
    if (n <= 0)
      continue;
    hwloc_obj_t first = hwloc_get_obj_by_type(topo_, type, 0);
    CacheLevel level;
    level.depth = first->attr->cache.depth;
    level.size_bytes = first->attr->cache.size;
    level.count = static_cast<unsigned>(n);
    level.type = first->attr->cache.type == HWLOC_OBJ_CACHE_DATA          ? 'd'
                 : first->attr->cache.type == HWLOC_OBJ_CACHE_INSTRUCTION ? 'i'
                                                                          : 'u';
    levels.push_back(level);
  }
  return levels;
}

std::uint64_t Topology::last_level_cache_bytes() const {
  const auto levels = caches();
  if (levels.empty())
    return 0;
  return levels.back().size_bytes * levels.back().count;
}

} // namespace railgauge
