// Built when libibverbs was not found at configure time (RAILGAUGE_HAS_IBVERBS=0).
#include "harness/inventory/verbs_query.h"

namespace railgauge {

nlohmann::json query_verbs(const std::string &) {
  return {{"available", false},
          {"reason", "built without libibverbs (infiniband/verbs.h not found at configure time)"},
          {"devices", nlohmann::json::array()}};
}

} // namespace railgauge
