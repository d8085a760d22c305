#include "records/gpu_part.h"

#include "harness/metric_names.h"
#include "harness/record_fields.h"

namespace railgauge::records {
namespace {

template <typename T>
void put(nlohmann::json &obj, const char *name, const std::optional<T> &value) {
  if (value)
    obj[name] = *value;
}

} // namespace

void GpuPart::write(nlohmann::json &gpu_object) const {
  gpu_object[metric::kGpu] = gpu;
  gpu_object[metric::kPerGpuUuid] = uuid;
  gpu_object[metric::kPerGpuPci] = pci;
  put(gpu_object, metric::kPerGpuName, name);
  if (verdict) {
    gpu_object[metric::kPerGpuVerdict] = std::string(to_string(*verdict));
    gpu_object[metric::kPerGpuError] = error ? nlohmann::json(*error) : nlohmann::json(nullptr);
  }
  put(gpu_object, metric::kPerGpuSettleS, settle_s);
  put(gpu_object, metric::kPerGpuElapsedS, elapsed_s);
  if (!series.is_null())
    gpu_object[metric::kPerGpuSeries] = series;
  if (!telemetry.is_null())
    gpu_object[metric::kTelemetry] = telemetry;
}

std::optional<GpuPart> GpuPart::identify(const nlohmann::json &gpu_object) {
  namespace f = record_fields;
  const auto *index = f::field(gpu_object, metric::kGpu);
  const auto uuid = f::text(gpu_object, metric::kPerGpuUuid);
  const auto pci = f::text(gpu_object, metric::kPerGpuPci);
  // A GPU that fell off the bus may give no UUID: its bus id still names its slot.
  if (!index || !index->is_number_integer() || (!uuid && !pci))
    return std::nullopt;
  GpuPart p;
  p.gpu = index->get<int>();
  p.uuid = uuid.value_or("");
  p.pci = pci.value_or("");
  p.name = f::text(gpu_object, metric::kPerGpuName);
  // A verdict this build does not know ("fail", "FAILED": a writer or an import of another
  // spelling) is no pass: an error, as an unknown status of a record is. It read as none, and
  // the GPU took its point's ok.
  if (const auto verdict = f::text(gpu_object, metric::kPerGpuVerdict))
    p.verdict = parse_status(*verdict).value_or(Status::error);
  p.error = f::text(gpu_object, metric::kPerGpuError);
  return p;
}

std::optional<GpuPart> GpuPart::read(const nlohmann::json &gpu_object) {
  namespace f = record_fields;
  auto p = identify(gpu_object);
  if (!p)
    return p;
  p->settle_s = f::number(gpu_object, metric::kPerGpuSettleS);
  p->elapsed_s = f::number(gpu_object, metric::kPerGpuElapsedS);
  if (const auto *series = f::field(gpu_object, metric::kPerGpuSeries))
    p->series = *series;
  if (const auto *telemetry = f::field(gpu_object, metric::kTelemetry))
    p->telemetry = *telemetry;
  return p;
}

} // namespace railgauge::records
