#include <memory>

#include "memory/host_stream.h"
#include "memory/memory_record.h"

namespace railgauge::memory {
namespace {

// Triad: STREAM's triad; counts 3x the array (read b and c, write a). Compare with likwid-bench's
// stream kernel (A = B*s + C, the same traffic).
class HostTriad final : public HostStreamBenchmark {
public:
  HostTriad() : HostStreamBenchmark(Kernel::triad) {}
  std::string_view key() const override { return record::kHostTriad; }
  std::string_view description() const override {
    return "Host DRAM triad bandwidth per NUMA node: a[i] = b[i] + s*c[i] over threads pinned one "
           "per core (GB/s, 3 arrays counted, write-allocate not counted)";
  }
};

} // namespace

std::unique_ptr<HostStreamBenchmark> make_host_triad() { return std::make_unique<HostTriad>(); }

} // namespace railgauge::memory
