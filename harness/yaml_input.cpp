#include "harness/yaml_input.h"

#include <fmt/format.h>

#include "harness/error.h"

namespace railgauge {
namespace {

const char *kind_of(const YAML::Node &node) {
  switch (node.Type()) {
  case YAML::NodeType::Map:
    return "a mapping";
  case YAML::NodeType::Sequence:
    return "a list";
  case YAML::NodeType::Null:
    return "empty";
  default:
    return "not a value";
  }
}

} // namespace

std::string at(const std::string &path, const YAML::Node &node) {
  const auto mark = node.Mark();
  return mark.line >= 0 ? fmt::format("{}:{}", path, mark.line + 1) : path;
}

// The text of a scalar; a mapping, a list or an empty value is an InputError at its line
// (yaml-cpp's as<std::string>() would throw its own exception type instead).
// An empty value has the position of what follows it: `line_of` names the line instead (its key).
std::string text_of(const YAML::Node &node, const std::string &path, const std::string &what,
                    const YAML::Node &line_of) {
  if (!node.IsScalar())
    throw InputError(fmt::format("{} must be a single value, but it is {}", what, kind_of(node)),
                     at(path, line_of), "write a plain value, e.g. memory.host_copy or 0.5");
  return node.Scalar();
}
std::string text_of(const YAML::Node &node, const std::string &path, const std::string &what) {
  return text_of(node, path, what, node);
}

void expect_keys(const YAML::Node &map, const std::string &path, const std::string &what,
                 std::initializer_list<const char *> allowed) {
  for (const auto &kv : map) {
    const auto name = text_of(kv.first, path, "a field name");
    bool ok = false;
    std::string list;
    for (const char *a : allowed) {
      ok = ok || name == a;
      list += (list.empty() ? "" : ", ") + std::string(a);
    }
    if (!ok)
      throw InputError(fmt::format("unknown field '{}' in {}", name, what), at(path, kv.first),
                       fmt::format("{} takes: {}", what, list));
  }
}

} // namespace railgauge
