#pragma once
// Every value a calibration writes that the runs did not measure, with where it came from
// (assumptions.h: assumed, spec, borrowed, derived). The fit report opens with this list, and
// `railgauge calibrate` refuses to write another GPU's figures unless asked to.
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "analysis/calibrate/calibration.h"

namespace railgauge::calibrate {

struct UnmeasuredValue {
  std::string name;     // Calculon path: "networks.0.bandwidth", "vector.float16.efficiency"
  nlohmann::json value; // a number, or a table's rows in Calculon units
  std::string source;
  std::string origin; // origin_of_source()
};

// Peaks, capacities, efficiency tables, network figures and op scalars, in that order.
std::vector<UnmeasuredValue> unmeasured_values(const Calibration &c);

// Those of them taken from another GPU's file.
std::vector<UnmeasuredValue> borrowed_values(const Calibration &c);

} // namespace railgauge::calibrate
