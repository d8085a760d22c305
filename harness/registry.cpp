#include "harness/registry.h"

#include <algorithm>
#include <fnmatch.h>
#include <stdexcept>

#include <fmt/format.h>

#include "harness/did_you_mean.h"
#include "harness/error.h"

namespace railgauge {
namespace {

bool valid_key(std::string_view key) {
  const auto dot = key.find('.');
  if (dot == std::string_view::npos || dot == 0 || dot + 1 == key.size())
    return false;
  return std::all_of(key.begin(), key.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_' || c == '.';
  });
}

} // namespace

bool glob_match(std::string_view glob, std::string_view text) {
  return fnmatch(std::string(glob).c_str(), std::string(text).c_str(), 0) == 0;
}

void Registry::add(std::unique_ptr<Benchmark> benchmark) {
  const std::string key(benchmark->key());
  if (!valid_key(key))
    throw std::logic_error("benchmark key '" + key + "' is not <family>.<name> in [a-z0-9_]");
  if (find(key))
    throw std::logic_error("benchmark key '" + key + "' registered twice");
  benchmarks_.push_back(std::move(benchmark));
}

Benchmark *Registry::find(std::string_view key) const {
  for (const auto &b : benchmarks_)
    if (b->key() == key)
      return b.get();
  return nullptr;
}

std::vector<Benchmark *> Registry::match(std::string_view glob) const {
  std::vector<Benchmark *> out;
  for (const auto &b : benchmarks_)
    if (glob_match(glob, b->key()))
      out.push_back(b.get());
  return out;
}

std::vector<Benchmark *> Registry::select(std::string_view glob, const std::string &where) const {
  auto out = match(glob);
  if (out.empty()) {
    const auto near = closest(glob);
    std::string list;
    for (const auto &k : near)
      list += (list.empty() ? "" : ", ") + k;
    throw InputError(fmt::format("no benchmark key matches '{}'", glob), where,
                     near.empty()
                         ? "run `railgauge list` to see the keys"
                         : fmt::format("closest keys: {} (`railgauge list` shows all)", list));
  }
  return out;
}

std::vector<std::string> Registry::closest(std::string_view key, std::size_t n) const {
  std::vector<std::pair<std::size_t, std::string>> scored;
  for (const auto &b : benchmarks_)
    scored.emplace_back(edit_distance(key, b->key()), std::string(b->key()));
  std::stable_sort(scored.begin(), scored.end(),
                   [](const auto &a, const auto &b) { return a.first < b.first; });
  std::vector<std::string> out;
  for (std::size_t i = 0; i < scored.size() && i < n; ++i)
    out.push_back(scored[i].second);
  return out;
}

std::vector<Benchmark *> Registry::all() const {
  std::vector<Benchmark *> out;
  for (const auto &b : benchmarks_)
    out.push_back(b.get());
  return out;
}

} // namespace railgauge
