#include "analysis/check/json_path.h"

#include <set>

#include "harness/json_integer.h"

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

// Visits each child of a wildcard's node. Where the node is an array of which some elements hold
// the path and others not (a GPU's all_reduce telemetry null among eight: per_gpu[6]), each
// element without it is a null value at the path's rest, never silently fewer values: a rule
// over the eight GPUs must not pass on seven.
template <typename Visit>
void each_element_or_missing(const nlohmann::json &node, const std::vector<std::string> &parts,
                             std::size_t rest, const std::string &prefix,
                             std::vector<PathValue> &out, Visit &&visit) {
  if (node.is_object()) {
    for (const auto &[k, v] : node.items())
      visit(k, v);
    return;
  }
  if (!node.is_array())
    return;
  std::vector<std::size_t> without;
  const auto before = out.size();
  for (std::size_t n = 0; n < node.size(); ++n) {
    const auto held = out.size();
    visit(std::to_string(n), node[n]);
    if (out.size() == held)
      without.push_back(n);
  }
  if (out.size() == before)
    return; // no element holds it: the path is not of this array
  for (const auto n : without) {
    auto path = join(prefix, std::to_string(n));
    for (std::size_t j = rest; j < parts.size(); ++j)
      if (parts[j] != "*" && parts[j] != "**")
        path = join(path, parts[j]);
    out.push_back({path, nullptr});
  }
}

struct Walk {
  const std::vector<std::string> &parts;
  std::vector<PathValue> &out;
  std::set<std::string> &seen;
  EmptyLists empty;
};

void walk(const nlohmann::json &node, std::size_t i, const std::string &prefix, Walk &w) {
  const auto &parts = w.parts;
  auto &out = w.out;
  if (i == parts.size()) {
    if (w.seen.insert(prefix).second) // `**` can reach one place along two routes
      out.push_back({prefix, node});
    return;
  }
  const auto &seg = parts[i];
  if (seg == "**") {
    walk(node, i + 1, prefix, w); // zero levels
    each_element_or_missing(node, parts, i + 1, prefix, out,
                            [&](const auto &k, const auto &v) { walk(v, i, join(prefix, k), w); });
  } else if (seg == "*") {
    if (w.empty == EmptyLists::held && (node.is_array() || node.is_object()) && node.empty()) {
      if (w.seen.insert(prefix).second)
        out.push_back({prefix, nullptr, true});
      return;
    }
    each_element_or_missing(node, parts, i + 1, prefix, out, [&](const auto &k, const auto &v) {
      walk(v, i + 1, join(prefix, k), w);
    });
  } else if (node.is_object()) {
    const auto it = node.find(seg);
    if (it != node.end())
      walk(*it, i + 1, join(prefix, seg), w);
  } else if (node.is_array() && !seg.empty() &&
             seg.find_first_not_of("0123456789") == std::string::npos) {
    const auto n = std::stoul(seg);
    if (n < node.size())
      walk(node[n], i + 1, join(prefix, seg), w);
  }
}

} // namespace

std::vector<PathValue> resolve_record_path(const Record &r, const std::string &path,
                                           EmptyLists empty) {
  if (path.find('*') == std::string::npos) {
    // No wildcard: one place or none, found without splitting or copying the path.
    std::string_view rest(path);
    const auto dot = rest.find('.');
    const auto first = rest.substr(0, dot);
    const nlohmann::json *node = first == "metrics"  ? &r.metrics
                                 : first == "params" ? &r.params
                                 : first == "device" ? &r.device
                                                     : nullptr;
    rest = dot == std::string_view::npos ? std::string_view() : rest.substr(dot + 1);
    while (node && dot != std::string_view::npos) {
      const auto next = rest.find('.');
      const auto seg = rest.substr(0, next);
      if (node->is_object()) {
        const auto it = node->find(seg);
        node = it != node->end() ? &*it : nullptr;
      } else if (node->is_array() && !seg.empty() &&
                 seg.find_first_not_of("0123456789") == std::string_view::npos &&
                 std::stoul(std::string(seg)) < node->size()) {
        node = &(*node)[std::stoul(std::string(seg))];
      } else {
        node = nullptr;
      }
      if (next == std::string_view::npos)
        break;
      rest = rest.substr(next + 1);
    }
    if (!node)
      return {};
    return {PathValue{path, *node}};
  }
  const auto parts = split(path);
  const nlohmann::json *section = parts[0] == "metrics"  ? &r.metrics
                                  : parts[0] == "params" ? &r.params
                                  : parts[0] == "device" ? &r.device
                                                         : nullptr;
  if (!section) // a wildcard first: the whole document, as resolve_path reads it
    return resolve_path(
        nlohmann::json{{"metrics", r.metrics}, {"params", r.params}, {"device", r.device}}, path);
  std::vector<PathValue> out;
  std::set<std::string> seen;
  Walk w{parts, out, seen, empty};
  walk(*section, 1, parts[0], w);
  return out;
}

std::string text_field(const nlohmann::json &j, const char *name) {
  if (!j.is_object())
    return "";
  const auto it = j.find(name);
  return it != j.end() && it->is_string() ? it->get<std::string>() : "";
}

std::optional<int> int_field(const nlohmann::json &j, const char *name) {
  if (!j.is_object() || !j.contains(name))
    return std::nullopt;
  return json_integer<int>(j.at(name));
}

std::vector<PathValue> resolve_path(const nlohmann::json &doc, const std::string &path) {
  std::vector<PathValue> out;
  std::set<std::string> seen;
  const auto parts = split(path);
  Walk w{parts, out, seen, EmptyLists::none};
  walk(doc, 0, "", w);
  return out;
}

} // namespace railgauge::check
