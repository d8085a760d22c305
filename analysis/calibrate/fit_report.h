#pragma once
// The fit report: for each coefficient set, whether it was measured (or where its values came
// from), how many points it was fitted on, and the model's error on points held out of the fit
// (k-fold: mean and max |t_pred - t| / t), beside the in-sample error. JSON
// (railgauge.fit_report/1) and markdown.
#include <string>

#include <nlohmann/json.hpp>

#include "analysis/calibrate/calibration.h"

namespace railgauge::calibrate {

nlohmann::json fit_report_json(const Calibration &c);
std::string fit_report_markdown(const nlohmann::json &report);

} // namespace railgauge::calibrate
