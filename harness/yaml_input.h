#pragma once
// Reading user-written YAML (suites, rules): every problem is an InputError at file:line, never
// a yaml-cpp exception, and an unknown field names the fields that are allowed.
#include <initializer_list>
#include <string>

#include <yaml-cpp/yaml.h>

namespace railgauge {

// "file:line" of `node`, or `path` alone when the node has no position.
std::string at(const std::string &path, const YAML::Node &node);

// The text of a scalar; a mapping, a list or an empty value is an InputError at its line.
// An empty value has the position of what follows it: `line_of` names the line instead (its key).
std::string text_of(const YAML::Node &node, const std::string &path, const std::string &what,
                    const YAML::Node &line_of);
std::string text_of(const YAML::Node &node, const std::string &path, const std::string &what);

// Throws InputError for a field of `map` that is not in `allowed`.
void expect_keys(const YAML::Node &map, const std::string &path, const std::string &what,
                 std::initializer_list<const char *> allowed);

} // namespace railgauge
