#include "rdma/endpoint_info.h"

#include <limits>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "harness/error.h"
#include "harness/json_integer.h"

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
                        {"region_bytes", region_bytes},
                        {"control_addr", control_addr},
                        {"control_rkey", control_rkey}}
      .dump();
}

namespace {

// An unsigned field of the peer's data, exactly: a QPN, LID or rkey out of its range is refused,
// never wrapped or rounded (a wrapped QPN connects to another queue pair).
template <class T>
T exact(const nlohmann::json &v, const char *name,
        std::uint64_t max = std::numeric_limits<T>::max()) {
  const auto value = json_integer<T>(v);
  if (!value || static_cast<std::uint64_t>(*value) > max)
    throw BackendError(fmt::format("malformed endpoint info from the peer: '{}' is {}, not a "
                                   "whole number in 0..{}",
                                   name, v.dump(), max));
  return *value;
}

// QPNs and PSNs are 24-bit numbers (InfiniBand Architecture Specification, BTH fields).
constexpr std::uint64_t kMax24Bit = 0xffffff;

std::vector<std::uint32_t> exact_list(const nlohmann::json &v, const char *name) {
  if (!v.is_array())
    throw BackendError(
        fmt::format("malformed endpoint info from the peer: '{}' is not a list", name));
  std::vector<std::uint32_t> out;
  for (const auto &e : v)
    out.push_back(exact<std::uint32_t>(e, name, kMax24Bit));
  return out;
}

} // namespace

std::optional<std::string> connection_mismatch(const EndpointInfo &remote, std::size_t qps,
                                               bool ethernet, std::uint64_t needed_region_bytes) {
  if (remote.qpns.size() != qps)
    return fmt::format("peer has {} QPs, this side {}: both must run the same point",
                       remote.qpns.size(), qps);
  if (remote.ethernet != ethernet)
    return "one side is RoCE and the other InfiniBand: they cannot connect";
  if (remote.region_bytes < needed_region_bytes)
    return fmt::format("peer registered {} bytes, this point reaches {}: both must run the same "
                       "point",
                       remote.region_bytes, needed_region_bytes);
  return std::nullopt;
}

EndpointInfo EndpointInfo::parse(const std::string &text) {
  try {
    const auto j = nlohmann::json::parse(text);
    if (!j.is_object())
      throw BackendError("malformed endpoint info from the peer: not a JSON object");
    EndpointInfo e;
    e.lid = exact<std::uint16_t>(j.at("lid"), "lid");
    e.gid_index = exact<int>(j.at("gid_index"), "gid_index");
    e.gid = gid_from_text(j.at("gid").get<std::string>());
    e.ethernet = j.at("ethernet").get<bool>();
    e.mtu_bytes = exact<std::uint32_t>(j.at("mtu_bytes"), "mtu_bytes");
    e.qpns = exact_list(j.at("qpns"), "qpns");
    e.psns = exact_list(j.at("psns"), "psns");
    e.addr = exact<std::uint64_t>(j.at("addr"), "addr");
    e.rkey = exact<std::uint32_t>(j.at("rkey"), "rkey");
    e.region_bytes = exact<std::uint64_t>(j.at("region_bytes"), "region_bytes");
    e.control_addr = exact<std::uint64_t>(j.at("control_addr"), "control_addr");
    e.control_rkey = exact<std::uint32_t>(j.at("control_rkey"), "control_rkey");
    if (e.qpns.empty() || e.qpns.size() != e.psns.size())
      throw BackendError("qpns and psns must be non-empty and of equal length");
    const auto malformed = [](const std::string &why) {
      return BackendError("malformed endpoint info from the peer: " + why);
    };
    if (e.mtu_bytes != 256 && e.mtu_bytes != 512 && e.mtu_bytes != 1024 && e.mtu_bytes != 2048 &&
        e.mtu_bytes != 4096)
      throw malformed(fmt::format("'mtu_bytes' is {}, not an InfiniBand MTU (256, 512, 1024, 2048 "
                                  "or 4096)",
                                  e.mtu_bytes));
    if (e.region_bytes > UINT64_MAX - e.addr)
      throw malformed(fmt::format("region of {} bytes at {:#x} wraps around the address space",
                                  e.region_bytes, e.addr));
    return e;
  } catch (const nlohmann::json::exception &ex) {
    throw BackendError(fmt::format("malformed endpoint info from the peer: {}", ex.what()));
  }
}

} // namespace railgauge::rdma
