#include <memory>

#include "memory/host_stream.h"
#include "memory/memory_record.h"

namespace railgauge::memory {
namespace {

// Copy: STREAM's copy with normal stores; counts 2x the array (read a, write c) like STREAM and
// likwid-bench's copy kernel. Not memcpy: glibc's memcpy switches to non-temporal stores for large
// sizes.
class HostCopy final : public HostStreamBenchmark {
public:
  HostCopy() : HostStreamBenchmark(Kernel::copy) {}
  std::string_view key() const override { return record::kHostCopy; }
  std::string_view description() const override {
    return "Host DRAM copy bandwidth per NUMA node: c[i] = a[i] over threads pinned one per core "
           "(GB/s, 2 arrays counted, write-allocate not counted)";
  }
};

} // namespace

std::unique_ptr<HostStreamBenchmark> make_host_copy() { return std::make_unique<HostCopy>(); }

} // namespace railgauge::memory
