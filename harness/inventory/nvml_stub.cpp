// Built when nvml.h was not found at configure time (RAILGAUGE_HAS_NVML=0).
#include "harness/inventory/inventory_fields.h"
#include "harness/inventory/nvml_query.h"

namespace railgauge {

nlohmann::json query_nvml(const std::string &library) {
  return {
      {inventory_field::kAvailable, false},
      {inventory_field::kReason, "built without NVML headers (nvml.h not found at configure time)"},
      {inventory_field::kLibrary, library},
      {inventory_field::kGpus, nlohmann::json::array()}};
}

} // namespace railgauge
