#include "rdma/data_pattern.h"

#include <fmt/format.h>

namespace railgauge::rdma {

void fill_pattern(std::uint8_t *data, std::size_t bytes, std::uint64_t seed) {
  for (std::size_t i = 0; i < bytes; ++i)
    data[i] = static_cast<std::uint8_t>((i * 131 + seed * 7 + 17) & 0xff);
}

std::string check_pattern(const std::uint8_t *data, std::size_t bytes, std::uint64_t seed,
                          const std::string &what) {
  std::size_t wrong = 0, first = 0;
  for (std::size_t i = 0; i < bytes; ++i)
    if (data[i] != static_cast<std::uint8_t>((i * 131 + seed * 7 + 17) & 0xff)) {
      if (wrong++ == 0)
        first = i;
    }
  if (wrong == 0)
    return {};
  return fmt::format("{}: {} of {} bytes differ from the pattern, first at byte {}", what, wrong,
                     bytes, first);
}

} // namespace railgauge::rdma
