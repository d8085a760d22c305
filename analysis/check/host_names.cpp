#include "analysis/check/host_names.h"

#include <algorithm>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

namespace railgauge::check {

std::optional<std::string> host_name_problem(const std::string &host) {
  if (host.empty())
    return "the host name is empty";
  // Not the name itself: it may be thousands of bytes.
  const auto shown = [&] {
    const auto head = host.substr(0, 40);
    return nlohmann::json(head).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) +
           (head.size() < host.size() ? "..." : "");
  };
  if (std::any_of(host.begin(), host.end(), [](unsigned char c) { return c < 0x20 || c == 0x7f; }))
    return fmt::format("host name {} holds a control character", shown());
  if (host.size() > kMaxHostNameBytes)
    return fmt::format("host name {} is {} bytes long, over the {} of a DNS name", shown(),
                       host.size(), kMaxHostNameBytes);
  return std::nullopt;
}

} // namespace railgauge::check
