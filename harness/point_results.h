#pragma once
// Which records of a run are results: a run resumed after a signal, a hung point or a lost rank
// holds two records of a point it ran again, and only the last is the point's result. Every
// reader of records (--resume, run.json's counts, and through analysis/run_set.h check, compare,
// report, calibrate and the fleet history) groups them into points here.
#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "harness/record.h"

namespace railgauge {

// "<key> <axes as compact JSON>": the identity of a planned point within a run.
std::string point_identity(std::string_view key, const nlohmann::json &axes);

// A point's last record is its result: the record a resume or a retry wrote after the point's
// error record replaces it. Removes from `records` every record that a later one of the same
// point replaces, keeping the order of the rest, and returns how many it removed. A point is its
// run, host, rank, key and axes: the axes, not the params, since the error record of a point
// that a signal or the watchdog stopped holds only the axes where the ok record of its re-run
// adds the params it derived (threads_used, total_bytes). A record without axes (an import, a
// record of an older railgauge) is a point of its own: two lines of an imported log are two
// measurements.
//
// Only an error record is ever run again (--resume, --retry-errors): a replaced record of another
// status (an ok or failed point recorded twice) is records edited or merged, and each is named in
// `unexpected` when given ("memory.pattern recorded 'failed', then 'ok' ({...})"), for the reader to refuse
// the run rather than judge its last word (a failed pattern test followed by a copy that passed
// read PASS).
std::size_t keep_point_results(std::vector<Record> &records,
                               std::vector<std::string> *unexpected = nullptr);

} // namespace railgauge
