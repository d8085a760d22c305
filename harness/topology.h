#pragma once
// The machine's topology through hwloc, loaded from this machine or from an hwloc XML file.
// Move-only RAII owner of the hwloc handle; the queries here are the ones benchmarks need to
// place threads and memory. The inventory (harness/inventory/) builds its full report on it.
#include <cstdint>
#include <string>
#include <vector>

#include <hwloc.h>

namespace railgauge {

struct NumaNode {
  unsigned os_index = 0;
  std::uint64_t memory_bytes = 0;
  std::vector<unsigned> core_pus; // one processing unit (OS index) per physical core, near it
  std::string cpuset;             // hwloc list syntax, e.g. "0-55,112-167"
};

struct CacheLevel {
  unsigned depth = 0; // 1 = L1
  char type = 'u';    // 'd' data, 'i' instruction, 'u' unified
  std::uint64_t size_bytes = 0;
  unsigned count = 0; // instances in the machine
};

class Topology {
public:
  // This machine, with PCI and OS devices (GPUs, NICs) kept.
  static Topology load_this_machine();
  // An hwloc XML export (lstopo --of xml); throws InputError naming the file when unreadable.
  static Topology load_xml(const std::string &path);

  Topology(Topology &&other) noexcept;
  Topology &operator=(Topology &&other) noexcept;
  Topology(const Topology &) = delete;
  Topology &operator=(const Topology &) = delete;
  ~Topology();

  hwloc_topology_t get() const { return topo_; }
  bool is_this_machine() const { return this_machine_; }

  std::vector<NumaNode> numa_nodes() const;
  std::vector<CacheLevel> caches() const;       // data and unified caches, L1 first
  std::uint64_t last_level_cache_bytes() const; // summed over instances

private:
  Topology(hwloc_topology_t topo, bool this_machine) : topo_(topo), this_machine_(this_machine) {}
  hwloc_topology_t topo_ = nullptr;
  bool this_machine_ = false;
};

// hwloc bitmap -> "0-3,8" (RAII around hwloc_bitmap_list_asprintf).
std::string bitmap_list(hwloc_const_bitmap_t bitmap);

} // namespace railgauge
