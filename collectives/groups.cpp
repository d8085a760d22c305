#include "collectives/groups.h"

#include <charconv>
#include <set>
#include <stdexcept>

#include <fmt/format.h>

#include "harness/error.h"

namespace railgauge::collectives {
namespace {

std::vector<std::string_view> split(std::string_view text, char sep) {
  std::vector<std::string_view> parts;
  std::size_t start = 0;
  while (true) {
    const auto end = text.find(sep, start);
    parts.push_back(text.substr(start, end == std::string_view::npos ? text.npos : end - start));
    if (end == std::string_view::npos)
      return parts;
    start = end + 1;
  }
}

bool valid_name(std::string_view name) {
  if (name.empty())
    return false;
  for (char c : name)
    if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_'))
      return false;
  return name != "world" && name != "concurrent";
}

} // namespace

const GroupAxis &GroupLayout::axis(std::string_view name) const {
  for (const auto &a : axes)
    if (a.name == name)
      return a;
  throw std::out_of_range(fmt::format("no group axis '{}'", name));
}

GroupLayout parse_group_layout(std::string_view spec, int world, const std::string &where) {
  const std::string fix = "write NAME=SIZE pairs, fastest-varying first, one of them may be "
                          "'rest': e.g. tp=8,pp=4,dp=rest (or tp=8+pp=4+dp=rest in -a groups=...)";
  GroupLayout layout;
  layout.world = world;
  int rest_at = -1;
  long product = 1;
  std::set<std::string> seen;
  // ',' or '+' between groups: '+' where ',' already separates values (-a groups=tp=8+dp=rest).
  const char sep = spec.find('+') != std::string_view::npos ? '+' : ',';
  for (auto part : split(spec, sep)) {
    const auto eq = part.find('=');
    if (eq == std::string_view::npos)
      throw InputError(fmt::format("group '{}' has no size", part), where, fix);
    const auto name = part.substr(0, eq), value = part.substr(eq + 1);
    if (!valid_name(name))
      throw InputError(fmt::format("bad group name '{}'", name), where,
                       "use lower-case letters, digits and '_' (not 'world' or 'concurrent')");
    if (!seen.insert(std::string(name)).second)
      throw InputError(fmt::format("group '{}' named twice", name), where, fix);
    GroupAxis axis{std::string(name), 1, 1};
    if (value == "rest") {
      if (rest_at >= 0)
        throw InputError("more than one group size is 'rest'", where, fix);
      rest_at = static_cast<int>(layout.axes.size());
    } else {
      int size = 0;
      const auto [ptr, ec] = std::from_chars(value.data(), value.data() + value.size(), size);
      if (ec != std::errc{} || ptr != value.data() + value.size() || size < 1)
        throw InputError(
            fmt::format("group '{}' has size '{}', not a positive integer", name, value), where,
            fix);
      axis.size = size;
      product *= size;
    }
    layout.axes.push_back(axis);
  }
  if (rest_at >= 0) {
    if (product > world || world % product != 0)
      throw InputError(fmt::format("'{}': the other sizes multiply to {}, which does not divide "
                                   "the {} ranks of this run",
                                   spec, product, world),
                       where, "choose sizes whose product divides the number of ranks");
    layout.axes[static_cast<std::size_t>(rest_at)].size = static_cast<int>(world / product);
  } else if (product != world) {
    throw InputError(fmt::format("'{}': the sizes multiply to {}, but this run has {} ranks", spec,
                                 product, world),
                     where,
                     spec.find('+') == std::string_view::npos && layout.axes.size() == 1
                         ? "make the sizes multiply to the number of ranks, or use 'rest'; in "
                           "-a groups=..., join the groups with '+' (tp=2+dp=rest), since ',' "
                           "separates an axis's values, or give --groups tp=2,dp=rest"
                         : "make the sizes multiply to the number of ranks, or use 'rest'");
  }
  int stride = 1;
  for (auto &a : layout.axes) {
    a.stride = stride;
    stride *= a.size;
  }
  return layout;
}

Group group_of(const GroupLayout &layout, std::string_view axis_name, int rank) {
  if (rank < 0 || rank >= layout.world)
    throw std::out_of_range(fmt::format("rank {} outside 0..{}", rank, layout.world - 1));
  const auto &axis = layout.axis(axis_name);
  Group g;
  g.type = axis.name;
  g.rank_in_group = (rank / axis.stride) % axis.size;
  // The colour: the rank's other coordinates as one mixed-radix number.
  int radix = 1;
  for (const auto &a : layout.axes) {
    if (a.name == axis.name)
      continue;
    g.index += ((rank / a.stride) % a.size) * radix;
    radix *= a.size;
  }
  const int base = rank - g.rank_in_group * axis.stride;
  for (int j = 0; j < axis.size; ++j)
    g.members.push_back(base + j * axis.stride);
  return g;
}

std::vector<std::string> placement_notes(const GroupLayout &layout, int ranks_per_node) {
  std::vector<std::string> notes;
  if (layout.axes.empty() || ranks_per_node < 1)
    return notes;
  const auto &first = layout.axes.front();
  if (first.size > 1 && ranks_per_node % first.size != 0)
    notes.push_back(fmt::format("{} groups of {} straddle nodes of {} ranks", first.name,
                                first.size, ranks_per_node));
  for (std::size_t k = 1; k < layout.axes.size(); ++k) {
    const auto &a = layout.axes[k];
    if (a.size > 1 && a.stride % ranks_per_node != 0)
      notes.push_back(fmt::format("{} groups (stride {}) mix local ranks of nodes of {}: not "
                                  "rail-aligned",
                                  a.name, a.stride, ranks_per_node));
  }
  return notes;
}

} // namespace railgauge::collectives
