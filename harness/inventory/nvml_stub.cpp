// Built when nvml.h was not found at configure time (RAILGAUGE_HAS_NVML=0).
#include "harness/inventory/nvml_query.h"

namespace railgauge {

nlohmann::json query_nvml(const std::string &library) {
  return {{"available", false},
          {"reason", "built without NVML headers (nvml.h not found at configure time)"},
          {"library", library},
          {"gpus", nlohmann::json::array()}};
}

} // namespace railgauge
