#pragma once
// Whether a run holds what its own run.json says it should: the evidence behind the built-in
// rule run-complete (evaluate.h). A run cut short passes no rule by the records it has.
#include <string>
#include <vector>

#include "analysis/run_set.h"

namespace railgauge::check {

// Why a run is not whole, by its own run.json: a status other than `complete`, fewer records
// than `points_planned`, or per-status `counts` that disagree with the records read (a record
// line cut in half). Empty when it is whole, or when run.json does not state these (a run
// written by hand, records.jsonl alone).
std::vector<std::string> incompleteness(const analysis::LoadedRun &run);

} // namespace railgauge::check
