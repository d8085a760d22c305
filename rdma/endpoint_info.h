#pragma once
// What one side of an RC connection tells the other through the Store (perftest's
// "LID:OUT:QPN:PSN:RKEY:VADDR:GID" line, as JSON): the port's LID and chosen GID, the MTU, one
// QPN/PSN per QP, the registered slots (address, rkey, bytes) the peer may write or read, and
// the control word it writes to stop this side (host memory, its own rkey when the slots are in
// GPU memory).
#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace railgauge::rdma {

struct EndpointInfo {
  std::uint16_t lid = 0;
  int gid_index = 0;
  std::array<std::uint8_t, 16> gid{};
  bool ethernet = false;       // RoCE: address by GID (GRH); InfiniBand: by LID
  std::uint32_t mtu_bytes = 0; // active MTU of the port
  std::vector<std::uint32_t> qpns;
  std::vector<std::uint32_t> psns;
  std::uint64_t addr = 0;
  std::uint32_t rkey = 0;
  std::uint64_t region_bytes = 0;
  std::uint64_t control_addr = 0;
  std::uint32_t control_rkey = 0;

  std::string serialize() const;
  // Throws BackendError naming the missing or malformed field: also a QPN or PSN over 24 bits,
  // an MTU that is not an InfiniBand MTU and a region that wraps around the address space.
  static EndpointInfo parse(const std::string &text);
};

// Why this side cannot connect to `remote` (another point's QP count or transport, or slots too
// small for what this side will write or read into them), or nullopt. Checked before any QP is
// moved to RTR: the peer's addresses and sizes are never trusted.
std::optional<std::string> connection_mismatch(const EndpointInfo &remote, std::size_t qps,
                                               bool ethernet, std::uint64_t needed_region_bytes);

// "fe80:0000:...:3456" <-> 16 bytes. parse throws BackendError on malformed text.
std::string gid_to_text(const std::array<std::uint8_t, 16> &gid);
std::array<std::uint8_t, 16> gid_from_text(const std::string &text);

} // namespace railgauge::rdma
