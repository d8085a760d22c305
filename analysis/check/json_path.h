#pragma once
// Dotted paths into JSON documents, as rules write them: "metrics.time_s.median". A segment `*`
// matches any one key (or array index), `**` any number of levels, zero included, so a rule can
// read a counter wherever a family nests it ("metrics.**.link_downed").
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace railgauge::check {

struct PathValue {
  std::string path; // the concrete path, wildcards resolved: "metrics.counters.link_downed"
  nlohmann::json value;
};

// Every value the path reaches, in document order (nlohmann objects iterate sorted by key, so
// the order is deterministic). Empty when nothing matches.
std::vector<PathValue> resolve_path(const nlohmann::json &doc, const std::string &path);

} // namespace railgauge::check
