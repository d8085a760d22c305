#include "analysis/check/json_path.h"

#include <set>

namespace railgauge::check {
namespace {

std::vector<std::string> split(const std::string &path) {
  std::vector<std::string> parts;
  std::string cur;
  for (char c : path) {
    if (c == '.') {
      parts.push_back(cur);
      cur.clear();
    } else {
      cur += c;
    }
  }
  parts.push_back(cur);
  return parts;
}

std::string join(const std::string &prefix, const std::string &name) {
  return prefix.empty() ? name : prefix + "." + name;
}

void walk(const nlohmann::json &node, const std::vector<std::string> &parts, std::size_t i,
          const std::string &prefix, std::vector<PathValue> &out, std::set<std::string> &seen) {
  if (i == parts.size()) {
    if (seen.insert(prefix).second) // `**` can reach one place along two routes
      out.push_back({prefix, node});
    return;
  }
  const auto &seg = parts[i];
  const auto children = [&](auto &&visit) {
    if (node.is_object())
      for (const auto &[k, v] : node.items())
        visit(k, v);
    else if (node.is_array())
      for (std::size_t n = 0; n < node.size(); ++n)
        visit(std::to_string(n), node[n]);
  };
  if (seg == "**") {
    walk(node, parts, i + 1, prefix, out, seen); // zero levels
    children([&](const std::string &k, const nlohmann::json &v) {
      walk(v, parts, i, join(prefix, k), out, seen);
    });
  } else if (seg == "*") {
    children([&](const std::string &k, const nlohmann::json &v) {
      walk(v, parts, i + 1, join(prefix, k), out, seen);
    });
  } else if (node.is_object()) {
    const auto it = node.find(seg);
    if (it != node.end())
      walk(*it, parts, i + 1, join(prefix, seg), out, seen);
  } else if (node.is_array() && !seg.empty() &&
             seg.find_first_not_of("0123456789") == std::string::npos) {
    const auto n = std::stoul(seg);
    if (n < node.size())
      walk(node[n], parts, i + 1, join(prefix, seg), out, seen);
  }
}

} // namespace

std::vector<PathValue> resolve_path(const nlohmann::json &doc, const std::string &path) {
  std::vector<PathValue> out;
  std::set<std::string> seen;
  walk(doc, split(path), 0, "", out, seen);
  return out;
}

} // namespace railgauge::check
