#pragma once
// Enums read and listed by the names their to_string() gives them (found by argument-dependent
// lookup), so that a parser and the list of choices its error offers cannot disagree.
#include <iterator>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

namespace railgauge {

// The value among `all` whose to_string() is `text`; nullopt for any other text.
template <typename Range>
auto value_named(std::string_view text, const Range &all)
    -> std::optional<std::decay_t<decltype(*std::begin(all))>> {
  for (const auto &value : all)
    if (to_string(value) == text)
      return value;
  return std::nullopt;
}

// Every value's name, in the order of `all`.
template <typename Range> std::vector<std::string> names_of(const Range &all) {
  std::vector<std::string> names;
  for (const auto &value : all)
    names.emplace_back(to_string(value));
  return names;
}

} // namespace railgauge
