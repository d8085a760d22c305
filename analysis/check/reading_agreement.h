#pragma once
// Whether a reading a rule judges agrees with the readings its record keeps beside it, as
// health_delta_agreement.h does for health counters' growth. A burn record whose count, flag or
// share says all is well while what it was taken from says otherwise (edited, or a writer's
// fault) passed the rule that reads it alone:
// - foreign_processes.count 0 beside a list of the processes that held the GPU;
// - pcie_link_downtrained false beside a link NVML sampled below its maximum generation or width;
// - reason_fraction.NAME 0 beside a window whose clocks_event_reasons saw NAME in some sample;
// - a share of time or a throttled time (*_violation_s) below 0, which no window can hold.
#include <optional>
#include <string>

#include "harness/record.h"

namespace railgauge::check {

// Why the reading at `path` (a concrete path) of `r`, `value`, is contradicted by its record, or
// nullopt when nothing beside it disagrees or can be read.
std::optional<std::string> reading_disagreement(const Record &r, const std::string &path,
                                                double value);

} // namespace railgauge::check
