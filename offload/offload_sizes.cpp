#include "offload/offload_sizes.h"

#include <algorithm>
#include <charconv>
#include <fstream>
#include <sstream>

namespace railgauge::offload {

std::optional<std::uint64_t> parse_mem_available_bytes(std::string_view meminfo) {
  constexpr std::string_view kField = "MemAvailable:";
  std::size_t at = 0;
  while (at < meminfo.size()) {
    const std::size_t end = std::min(meminfo.find('\n', at), meminfo.size());
    std::string_view line = meminfo.substr(at, end - at);
    at = end + 1;
    if (line.substr(0, kField.size()) != kField)
      continue;
    line.remove_prefix(kField.size());
    while (!line.empty() && line.front() == ' ')
      line.remove_prefix(1);
    std::uint64_t kib = 0;
    const auto [ptr, ec] = std::from_chars(line.data(), line.data() + line.size(), kib);
    if (ec != std::errc() || ptr == line.data())
      return std::nullopt;
    std::string_view unit(ptr, static_cast<std::size_t>(line.data() + line.size() - ptr));
    while (!unit.empty() && unit.front() == ' ')
      unit.remove_prefix(1);
    if (unit != "kB") // the kernel writes kB meaning KiB (fs/proc/meminfo.c)
      return std::nullopt;
    return kib * 1024;
  }
  return std::nullopt;
}

std::optional<std::uint64_t> host_available_bytes(const std::string &meminfo_path) {
  std::ifstream in(meminfo_path);
  if (!in)
    return std::nullopt;
  std::ostringstream text;
  text << in.rdbuf();
  return parse_mem_available_bytes(text.str());
}

std::vector<std::int64_t> offload_default_sizes_bytes(std::optional<std::uint64_t> available_bytes,
                                                      int host_buffers) {
  std::vector<std::int64_t> sizes;
  const double budget = available_bytes
                            ? kMaxHostMemoryShare * static_cast<double>(*available_bytes)
                            : static_cast<double>(kLastSizeBytes) * std::max(host_buffers, 1);
  for (std::int64_t s = kFirstSizeBytes; s <= kLastSizeBytes; s *= 2)
    if (sizes.empty() || static_cast<double>(s) * std::max(host_buffers, 1) <= budget)
      sizes.push_back(s);
  return sizes;
}

} // namespace railgauge::offload
