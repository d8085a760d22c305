// HostGemmLoad without OpenBLAS: the benchmark that uses it is waived
// (host_gemm_unavailable_reason) before it could construct one.
#include "collectives/mpi/host_gemm_load.h"

#include "harness/error.h"

namespace railgauge::collectives {
namespace {
constexpr const char *kWhy = "built without OpenBLAS (install libopenblas-dev and reconfigure)";
} // namespace

std::optional<std::string> host_gemm_unavailable_reason() { return std::string(kWhy); }

HostGemmLoad::HostGemmLoad(int mnk) : mnk_(mnk) { throw BackendError(kWhy); }
void HostGemmLoad::run() {}
int HostGemmLoad::threads() const { return 0; }
std::string HostGemmLoad::library() const { return {}; }
std::uint64_t HostGemmLoad::count_wrong(int) const { return 0; }

} // namespace railgauge::collectives
