#include "records/per_gpu_parts.h"

#include "harness/device_fields.h"
#include "harness/metric_names.h"

namespace railgauge::records {
namespace {

// The GPU objects of a record: metrics.per_gpu, or gemm.burn's metrics.gpus.
const nlohmann::json *gpu_objects(const Record &r) {
  for (const char *name : {"per_gpu", "gpus"}) {
    const auto it = r.metrics.find(name);
    if (it != r.metrics.end() && it->is_array())
      return &*it;
  }
  return nullptr;
}

Status status_of(const nlohmann::json &gpu, Status point) {
  const std::string verdict = gpu.value("verdict", std::string());
  if (verdict == "failed")
    return Status::failed;
  if (verdict == "error")
    return Status::error;
  return point == Status::failed || point == Status::error ? Status::ok : point;
}

} // namespace

std::vector<Record> per_gpu_parts(const Record &r) {
  std::vector<Record> parts;
  const nlohmann::json *gpus = gpu_objects(r);
  if (!gpus)
    return parts;
  for (const auto &gpu : *gpus) {
    // Only objects that say which GPU they are: an index and a uuid.
    if (!gpu.is_object() || !gpu.contains("gpu") || !gpu["gpu"].is_number_integer() ||
        !gpu.contains("uuid") || !gpu["uuid"].is_string())
      continue;
    Record part;
    part.run = r.run;
    part.host = r.host;
    part.rank = r.rank;
    part.key = r.key;
    part.time_utc = r.time_utc;
    part.params = r.params.is_object() ? r.params : nlohmann::json::object();
    part.params["gpu"] = gpu["gpu"];
    part.params["part"] = kPerGpuPart;
    part.device = {{device::kGpu, gpu["uuid"]}};
    if (gpu.contains(metric::kPerGpuPci) && gpu[metric::kPerGpuPci].is_string())
      part.device[device::kPci] = gpu[metric::kPerGpuPci];
    part.metrics = gpu;
    part.status = status_of(gpu, r.status);
    if (part.status == Status::failed || part.status == Status::error)
      part.reason = gpu.value("error", nlohmann::json(nullptr)).is_string()
                        ? gpu["error"].get<std::string>()
                        : r.reason;
    parts.push_back(std::move(part));
  }
  return parts;
}

bool is_per_gpu_part(const Record &r) {
  return r.params.is_object() && r.params.value("part", std::string()) == kPerGpuPart;
}

} // namespace railgauge::records
