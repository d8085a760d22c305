#include "rdma/endpoint_info.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "harness/error.h"

namespace railgauge::rdma {

std::string gid_to_text(const std::array<std::uint8_t, 16> &gid) {
  std::string out;
  for (std::size_t i = 0; i < gid.size(); i += 2)
    out += fmt::format("{}{:02x}{:02x}", i ? ":" : "", gid[i], gid[i + 1]);
  return out;
}

std::array<std::uint8_t, 16> gid_from_text(const std::string &text) {
  std::array<std::uint8_t, 16> gid{};
  std::size_t nibbles = 0;
  for (char c : text) {
    if (c == ':')
      continue;
    int v = -1;
    if (c >= '0' && c <= '9')
      v = c - '0';
    else if (c >= 'a' && c <= 'f')
      v = c - 'a' + 10;
    else if (c >= 'A' && c <= 'F')
      v = c - 'A' + 10;
    if (v < 0 || nibbles >= 32)
      throw BackendError(fmt::format("malformed GID '{}'", text));
    gid[nibbles / 2] = static_cast<std::uint8_t>(gid[nibbles / 2] | (nibbles % 2 ? v : v << 4));
    ++nibbles;
  }
  if (nibbles != 32)
    throw BackendError(
        fmt::format("malformed GID '{}': {} hex digits, expected 32", text, nibbles));
  return gid;
}

std::string EndpointInfo::serialize() const {
  return nlohmann::json{{"lid", lid},
                        {"gid_index", gid_index},
                        {"gid", gid_to_text(gid)},
                        {"ethernet", ethernet},
                        {"mtu_bytes", mtu_bytes},
                        {"qpns", qpns},
                        {"psns", psns},
                        {"addr", addr},
                        {"rkey", rkey},
                        {"region_bytes", region_bytes}}
      .dump();
}

EndpointInfo EndpointInfo::parse(const std::string &text) {
  try {
    const auto j = nlohmann::json::parse(text);
    EndpointInfo e;
    e.lid = j.at("lid").get<std::uint16_t>();
    e.gid_index = j.at("gid_index").get<int>();
    e.gid = gid_from_text(j.at("gid").get<std::string>());
    e.ethernet = j.at("ethernet").get<bool>();
    e.mtu_bytes = j.at("mtu_bytes").get<std::uint32_t>();
    e.qpns = j.at("qpns").get<std::vector<std::uint32_t>>();
    e.psns = j.at("psns").get<std::vector<std::uint32_t>>();
    e.addr = j.at("addr").get<std::uint64_t>();
    e.rkey = j.at("rkey").get<std::uint32_t>();
    e.region_bytes = j.at("region_bytes").get<std::uint64_t>();
    if (e.qpns.empty() || e.qpns.size() != e.psns.size())
      throw BackendError("qpns and psns must be non-empty and of equal length");
    return e;
  } catch (const nlohmann::json::exception &ex) {
    throw BackendError(fmt::format("malformed endpoint info from the peer: {}", ex.what()));
  }
}

} // namespace railgauge::rdma
