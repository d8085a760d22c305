#include <memory>

#include "memory/host_stream.h"
#include "memory/memory_record.h"

namespace railgauge::memory {
namespace {

// Read: loads only, the sum kept per thread and checked against its closed form. Compare with
// likwid-bench's load kernel.
class HostRead final : public HostStreamBenchmark {
public:
  HostRead() : HostStreamBenchmark(Kernel::read) {}
  std::string_view key() const override { return record::kHostRead; }
  std::string_view description() const override {
    return "Host DRAM read bandwidth per NUMA node: sum += a[i] over threads pinned one per core "
           "(GB/s, 1 array counted)";
  }
};

} // namespace

std::unique_ptr<HostStreamBenchmark> make_host_read() { return std::make_unique<HostRead>(); }

} // namespace railgauge::memory
