#include "harness/every_gpu.h"

#include <fmt/format.h>

#include "harness/error.h"
#include "harness/metric_names.h"

namespace railgauge {

Axis every_gpu_duration_axis(double default_s, const std::string &what) {
  return {metric::kDurationS,
          AxisType::real,
          fmt::format("seconds of {} per GPU (all GPUs at once); a burn longer than the "
                      "--point-timeout (600 s by default) needs a larger one",
                      what),
          {default_s},
          {}};
}

Axis every_gpu_device_axis() {
  return {metric::kGpu,
          AxisType::integer,
          "CUDA device index to burn alone; -1 = every visible GPU at once",
          {std::int64_t{-1}},
          {}};
}

EveryGpuAxes every_gpu_axes(const Point &point, int gpus_visible) {
  EveryGpuAxes a;
  a.duration_s = point.real(metric::kDurationS);
  if (!(a.duration_s > 0) || a.duration_s > 7 * 24 * 3600.0)
    throw InputError(fmt::format("duration_s = {} is not a burn duration", a.duration_s),
                     "duration_s", "give seconds, more than 0 and at most a week");
  a.gpus = every_gpu_devices(point, gpus_visible);
  return a;
}

std::vector<int> every_gpu_devices(const Point &point, int gpus_visible) {
  const std::int64_t gpu = point.integer(metric::kGpu);
  if (gpu < -1)
    throw InputError(fmt::format("gpu = {} is not a device index", gpu), "gpu",
                     "give -1 (every GPU) or 0, 1, ...");
  std::vector<int> gpus;
  if (gpu == -1)
    for (int d = 0; d < gpus_visible; ++d)
      gpus.push_back(d);
  else
    gpus.push_back(static_cast<int>(gpu));
  return gpus;
}

} // namespace railgauge
