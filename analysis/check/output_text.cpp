#include "analysis/check/output_text.h"

#include <algorithm>
#include <cctype>

#include <fmt/format.h>

namespace railgauge::check {

std::string upper(std::string_view s) {
  std::string out(s);
  std::transform(out.begin(), out.end(), out.begin(),
                 [](unsigned char c) { return static_cast<char>(std::toupper(c)); });
  return out;
}

std::string escape_chars(std::string_view s,
                         std::initializer_list<std::pair<char, std::string_view>> table) {
  std::string out;
  for (const char c : s) {
    const auto it =
        std::find_if(table.begin(), table.end(), [c](const auto &e) { return e.first == c; });
    if (it != table.end())
      out += it->second;
    else
      out += c;
  }
  return out;
}

std::string_view verdict_text(Level v) { return v == Level::info ? "pass" : to_string(v); }

std::string part_name(const PartResult &p) {
  if (p.key.kind == PartKind::node)
    return "node";
  if (p.key.kind == PartKind::gpu && p.label != "gpu " + p.key.id)
    return fmt::format("{} ({})", p.label, p.key.id);
  return p.label;
}

} // namespace railgauge::check
