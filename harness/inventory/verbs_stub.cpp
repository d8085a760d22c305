// Built when libibverbs was not found at configure time (RAILGAUGE_HAS_IBVERBS=0).
#include "harness/inventory/inventory_fields.h"
#include "harness/inventory/verbs_query.h"

namespace railgauge {

nlohmann::json query_verbs(const std::string &) {
  return {{inventory_field::kAvailable, false},
          {inventory_field::kReason,
           "built without libibverbs (infiniband/verbs.h not found at configure time)"},
          {inventory_field::kDevices, nlohmann::json::array()}};
}

} // namespace railgauge
