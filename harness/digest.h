#pragma once
// FNV-1a, 64 bits: a digest that is stable across builds and platforms, unlike std::hash, and
// that can be fed piece by piece (a file read in chunks). For telling inputs apart in names and
// plans, never for security.
#include <cstdint>
#include <string_view>

namespace railgauge {

class Fnv1a64 {
public:
  Fnv1a64 &add(std::string_view bytes) {
    for (unsigned char c : bytes) {
      value_ ^= c;
      value_ *= 0x100000001b3ull;
    }
    return *this;
  }
  std::uint64_t value() const { return value_; }

private:
  std::uint64_t value_ = 0xcbf29ce484222325ull;
};

} // namespace railgauge
