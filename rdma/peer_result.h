#pragma once
// What the serving side of a pair reports through the Store once a point is over
// ("<prefix>server_result"): the checks of the data it received, how many messages it handled
// and, for verbs, the time it was active, its NIC and its port's counters; or the error that
// stopped it. The measuring side decodes the peer's text here: whatever another process (perhaps of
// another version) sent, it is a PeerResult or a BackendError saying what is malformed, never a
// JSON library exception.
#include <cstdint>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "rdma/data_pattern.h"

namespace railgauge::rdma {

struct PeerResult {
  std::optional<std::string> error; // the peer failed and says why; nothing else is set
  DataCheck checked;
  std::uint64_t messages = 0;
  std::optional<double> active_s;        // verbs: from the peer's first to its last completion
  std::optional<std::string> device;     // verbs: the peer's NIC
  std::uint64_t refused_connections = 0; // TCP: connections refused before the client's
  // verbs: the counters of the peer's port across the point (port_counters.h's deltas)
  std::optional<nlohmann::json> port_counter_deltas;

  // {"error": why} or {"problems": [..], "wrong_bytes": n, "messages": n[, "active_s": s]
  //  [, "device": name][, "refused_connections": n][, "port_counter_deltas": {..}]}
  nlohmann::json to_json() const;
  // Throws BackendError naming the malformed field.
  static PeerResult parse(const std::string &text);
};

} // namespace railgauge::rdma
