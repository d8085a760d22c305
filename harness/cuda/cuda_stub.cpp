// harness/cuda for builds without CUDA (RAILGAUGE_HAS_CUDA == 0): no devices, and a reason that
// says so, so that every CUDA benchmark is registered and waived rather than missing.
#include "harness/cuda/device.h"
#include "harness/cuda/event_timer.h"
#include "harness/cuda/gpudirect_buffer.h"
#include "harness/error.h"

namespace railgauge::gpu {
namespace {
constexpr const char *kNoCuda =
    "built without CUDA (RAILGAUGE_ENABLE_CUDA=OFF or no toolkit found)";
} // namespace

std::optional<std::string> cuda_unavailable_reason() { return std::string(kNoCuda); }

int cuda_device_count() { return 0; }

CudaDeviceInfo cuda_device_info(int) { throw BackendError(kNoCuda); }

struct CudaEventTimer::State {};

CudaEventTimer::CudaEventTimer(int device, double spin_timeout_s)
    : device_(device), spin_timeout_s_(spin_timeout_s) {
  throw BackendError(kNoCuda);
}

CudaEventTimer::~CudaEventTimer() = default;

StreamHandle CudaEventTimer::stream() const { return nullptr; }

void CudaEventTimer::prime(const Operation &) { throw BackendError(kNoCuda); }

double CudaEventTimer::time_batch_s(const Operation &, std::int64_t) {
  throw BackendError(kNoCuda);
}

struct GpuDirectBuffer::State {};

GpuDirectBuffer::GpuDirectBuffer(int, std::size_t) { throw BackendError(kNoCuda); }
GpuDirectBuffer::GpuDirectBuffer(GpuDirectBuffer &&) noexcept = default;
GpuDirectBuffer &GpuDirectBuffer::operator=(GpuDirectBuffer &&) noexcept = default;
GpuDirectBuffer::~GpuDirectBuffer() = default;
int GpuDirectBuffer::device() const { return -1; }
std::uint64_t GpuDirectBuffer::address() const { return 0; }
std::size_t GpuDirectBuffer::size_bytes() const { return 0; }
void GpuDirectBuffer::copy_in(std::size_t, const void *, std::size_t) {
  throw BackendError(kNoCuda);
}
void GpuDirectBuffer::copy_out(std::size_t, void *, std::size_t) const {
  throw BackendError(kNoCuda);
}
std::variant<DmaBuf, std::string> GpuDirectBuffer::export_dmabuf() const {
  return std::string(kNoCuda);
}

} // namespace railgauge::gpu
