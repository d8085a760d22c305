#pragma once
// A burn-in phase's name in the plan, burnin.json, the console's per-GPU table and the report:
// its key, and for a GEMM burn in another dtype than bf16 the dtype after it ("gemm.burn fp64"),
// so that the bf16, fp64 and tf32 burns stay apart while the bf16 phase keeps the name committed
// runs were written with.
#include <string>

#include <nlohmann/json.hpp>

#include "records/offload_record.h"

namespace railgauge {

inline std::string burnin_phase_name(const std::string &key, const std::string &dtype) {
  if (key != "gemm.burn" || dtype.empty() || dtype == "bf16")
    return key;
  return key + " " + dtype;
}

// The phase of a record (or a GPU's part of one) with these params: the dtype they hold, if any.
inline std::string burnin_phase_of(const std::string &key, const nlohmann::json &params) {
  const bool typed = params.is_object() && params.contains("dtype") && params["dtype"].is_string();
  return burnin_phase_name(key, typed ? params["dtype"].get<std::string>() : "");
}

// A phase's column wherever one phase runs at more than one placement (the host copies near and
// far from each GPU): the phase's name, then the placement ("offload.all_gpus_h2d near").
inline std::string burnin_column_of(const std::string &key, const nlohmann::json &params) {
  std::string name = burnin_phase_of(key, params);
  const char *placement = offload::record::kPlacement;
  if (params.is_object() && params.contains(placement) && params[placement].is_string())
    name += " " + params[placement].get<std::string>();
  return name;
}

} // namespace railgauge
