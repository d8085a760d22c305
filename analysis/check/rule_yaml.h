#pragma once
// One rule of a rules file read from YAML (its fields, bound, fleet and curve), and the scalars a
// rules file holds, each refused with an InputError that names the file and line.
#include <string>

#include <yaml-cpp/yaml.h>

#include "analysis/check/rules.h"

namespace railgauge::check {

std::string yaml_scalar(const YAML::Node &node, const std::string &file, const std::string &what);
// warn or fail, or info where `allow_info`.
Level yaml_level(const YAML::Node &node, const std::string &file, const std::string &what,
                 bool allow_info);
Rule parse_rule(const YAML::Node &node, const std::string &file);

} // namespace railgauge::check
