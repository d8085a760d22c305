#include "rdma/peer_result.h"

#include <cmath>

#include <fmt/format.h>

#include "harness/error.h"
#include "harness/json_integer.h"

namespace railgauge::rdma {
namespace {

[[noreturn]] void malformed(const std::string &why) {
  throw BackendError(fmt::format("malformed result from the peer: {}", why));
}

std::uint64_t count_field(const nlohmann::json &j, const char *name) {
  const auto &v = j.at(name);
  const auto count = json_integer<std::uint64_t>(v);
  if (!count)
    malformed(fmt::format("'{}' is {}, not a count", name, v.dump()));
  return *count;
}

} // namespace

nlohmann::json PeerResult::to_json() const {
  if (error)
    return {{"error", *error}};
  nlohmann::json j = checked.to_json();
  j["messages"] = messages;
  if (active_s)
    j["active_s"] = *active_s;
  if (device)
    j["device"] = *device;
  if (refused_connections)
    j["refused_connections"] = refused_connections;
  if (port_counter_deltas)
    j["port_counter_deltas"] = *port_counter_deltas;
  return j;
}

PeerResult PeerResult::parse(const std::string &text) {
  const auto j = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded() || !j.is_object())
    malformed(fmt::format("not a JSON object: '{}'", text.substr(0, 200)));
  PeerResult r;
  if (j.contains("error")) {
    if (!j.at("error").is_string())
      malformed(fmt::format("'error' is {}, not a text", j.at("error").dump()));
    r.error = j.at("error").get<std::string>();
    return r;
  }
  for (const char *required : {"problems", "messages"})
    if (!j.contains(required))
      malformed(fmt::format("no '{}'", required));
  const auto &problems = j.at("problems");
  if (!problems.is_array())
    malformed("'problems' is not a list");
  for (const auto &p : problems) {
    if (!p.is_string())
      malformed(fmt::format("a problem is {}, not a text", p.dump()));
    r.checked.problems.push_back(p.get<std::string>());
  }
  if (j.contains("wrong_bytes"))
    r.checked.wrong_bytes = count_field(j, "wrong_bytes");
  r.messages = count_field(j, "messages");
  if (j.contains("refused_connections"))
    r.refused_connections = count_field(j, "refused_connections");
  if (j.contains("active_s")) {
    const auto &a = j.at("active_s");
    if (!a.is_number() || !std::isfinite(a.get<double>()) || a.get<double>() < 0)
      malformed(fmt::format("'active_s' is {}, not a time in seconds", a.dump()));
    r.active_s = a.get<double>();
  }
  if (j.contains("device")) {
    if (!j.at("device").is_string())
      malformed(fmt::format("'device' is {}, not a text", j.at("device").dump()));
    r.device = j.at("device").get<std::string>();
  }
  if (j.contains("port_counter_deltas")) {
    if (!j.at("port_counter_deltas").is_object())
      malformed(fmt::format("'port_counter_deltas' is {}, not an object",
                            j.at("port_counter_deltas").dump().substr(0, 200)));
    r.port_counter_deltas = j.at("port_counter_deltas");
  }
  return r;
}

} // namespace railgauge::rdma
