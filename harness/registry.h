#pragma once
// Every benchmark, by stable key. Families add theirs through an explicit
// register_<family>(Registry&) list (no static self-registration: the linker drops those
// objects from static libraries, google/benchmark#1498).
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "harness/benchmark.h"

namespace railgauge {

class Registry {
public:
  // Throws std::logic_error on a duplicate or malformed key (a programming error).
  void add(std::unique_ptr<Benchmark> benchmark);

  Benchmark *find(std::string_view key) const;
  // Benchmarks whose key matches a shell glob (`*`, `?`, `[...]`), in registration order.
  std::vector<Benchmark *> match(std::string_view glob) const;
  // Like match(), but an empty match throws InputError naming the closest keys.
  std::vector<Benchmark *> select(std::string_view glob, const std::string &where) const;
  // Up to `n` keys nearest to `key` by edit distance, closest first.
  std::vector<std::string> closest(std::string_view key, std::size_t n = 3) const;
  std::vector<Benchmark *> all() const;

private:
  std::vector<std::unique_ptr<Benchmark>> benchmarks_;
};

bool glob_match(std::string_view glob, std::string_view text);

} // namespace railgauge
