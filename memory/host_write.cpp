#include <memory>

#include "memory/host_stream.h"
#include "memory/memory_record.h"

namespace railgauge::memory {
namespace {

// Write: normal (not non-temporal) stores, so the DRAM also reads every line before it is written
// (write-allocate), which is not counted. Compare with likwid-bench's store kernel.
class HostWrite final : public HostStreamBenchmark {
public:
  HostWrite() : HostStreamBenchmark(Kernel::write) {}
  std::string_view key() const override { return record::kHostWrite; }
  std::string_view description() const override {
    return "Host DRAM write bandwidth per NUMA node: a[i] = s with normal stores over threads "
           "pinned one per core (GB/s, 1 array counted, write-allocate not counted)";
  }
};

} // namespace

std::unique_ptr<HostStreamBenchmark> make_host_write() { return std::make_unique<HostWrite>(); }

} // namespace railgauge::memory
