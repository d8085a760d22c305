#pragma once
// Dotted paths into JSON documents, as rules write them: "metrics.time_s.median". A segment `*`
// matches any one key (or array index), `**` any number of levels, zero included, so a rule can
// read a counter wherever a family nests it ("metrics.**.link_downed").
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "harness/record.h"

namespace railgauge::check {

struct PathValue {
  std::string path; // the concrete path, wildcards resolved: "metrics.counters.link_downed"
  nlohmann::json value;
  // With EmptyLists::held only: a `*` met an empty list or object here (the links that counted an
  // error, none), so there is nothing to judge at `path` and nothing missing either.
  bool empty = false;
};

// Whether a `*` over an empty list or object reaches a place of its own (PathValue::empty), or
// nothing, as a path that leads nowhere does.
enum class EmptyLists { none, held };

// Every value the path reaches, in document order (nlohmann objects iterate sorted by key, so
// the order is deterministic). Empty when nothing matches.
std::vector<PathValue> resolve_path(const nlohmann::json &doc, const std::string &path);

// resolve_path over the record's {"device", "metrics", "params"}, without copying them into one
// document (a rule reads one path of every record it selects).
std::vector<PathValue> resolve_record_path(const Record &r, const std::string &path,
                                           EmptyLists empty = EmptyLists::none);

// A field of run.json read back: a file, it may hold anything. Missing or of another type, the
// field is absent (never the JSON library's type_error, never a float cast out of range).
std::string text_field(const nlohmann::json &j, const char *name);
std::optional<int> int_field(const nlohmann::json &j, const char *name);

} // namespace railgauge::check
