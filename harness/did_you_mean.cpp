#include "harness/did_you_mean.h"

#include <algorithm>

#include <fmt/format.h>

namespace railgauge {

std::size_t edit_distance(std::string_view a, std::string_view b) {
  std::vector<std::size_t> row(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j)
    row[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    std::size_t diagonal = row[0];
    row[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const std::size_t up = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diagonal = up;
    }
  }
  return row[b.size()];
}

std::vector<std::string>
likely_meant(std::string_view name, const std::vector<std::string> &candidates, std::size_t most) {
  std::vector<std::string> out;
  if (name.empty())
    return out;
  for (const auto &c : candidates)
    if (c != name && (c.starts_with(name) || c.ends_with(name)) &&
        std::find(out.begin(), out.end(), c) == out.end())
      out.push_back(c);
  if (out.empty()) {
    std::size_t best = std::max<std::size_t>(2, name.size() / 3);
    for (const auto &c : candidates) {
      const auto d = edit_distance(name, c);
      if (d == 0 || d > best)
        continue;
      if (d < best)
        out.clear();
      best = d;
      if (std::find(out.begin(), out.end(), c) == out.end())
        out.push_back(c);
    }
  }
  if (out.size() > most)
    out.resize(most);
  return out;
}

std::string did_you_mean(std::string_view name, const std::vector<std::string> &candidates) {
  const auto near = likely_meant(name, candidates);
  if (near.empty())
    return "";
  std::string list;
  for (const auto &c : near)
    list += fmt::format("{}'{}'", list.empty() ? "" : " or ", c);
  return fmt::format("did you mean {}? ", list);
}

} // namespace railgauge
