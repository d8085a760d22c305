#pragma once
// Whether a health counter's growth (metrics...telemetry.health_delta.NAME) agrees with the rest
// of its telemetry: the readings it was taken from (before.NAME, after.NAME) and, for the Xid
// count, the Xid list beside it. A burn record whose delta says 0 while its own readings grew
// (edited, or a writer's fault) passed every health rule that reads the delta alone.
#include <optional>
#include <string>

#include "harness/record.h"

namespace railgauge::check {

// Why the delta at `path` (a concrete path holding ".health_delta.") of `r` reads `delta` when
// its record says otherwise, or nullopt when nothing beside it disagrees or can be read.
std::optional<std::string> health_delta_disagreement(const Record &r, const std::string &path,
                                                     double delta);

// Why the health counter at `path` (a concrete path holding ".health_delta.") is null, where its
// delta says: "NAME_note" or, for "STEM_..." (xid_events), "STEM_note" beside it, as the
// writer records the kernel log it could not read. nullopt where no note is there.
std::optional<std::string> health_counter_unread_note(const Record &r, const std::string &path);

} // namespace railgauge::check
