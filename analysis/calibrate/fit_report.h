#pragma once
// The fit report: for each coefficient set, whether it was measured (or where its values came
// from), how many points it was fitted on, and the model's error on points held out of the fit
// (k-fold: mean and max |t_pred - t| / t), beside the in-sample error. JSON
// (railgauge.fit_report/1) and markdown.
#include <string>

#include <nlohmann/json.hpp>

#include "analysis/calibrate/calibration.h"
#include "analysis/calibrate/execution_sizes.h"

namespace railgauge::calibrate {

// With an execution, every measured coefficient set also gets its held-out error weighted by the
// sizes that execution asks for (execution_error.h), and the report says which execution.
nlohmann::json fit_report_json(const Calibration &c, const ExecutionSizes *execution = nullptr);
std::string fit_report_markdown(const nlohmann::json &report);

} // namespace railgauge::calibrate
