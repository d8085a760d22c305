#pragma once
// What the store's server has yet to send on one connection: its own bytes (hello replies,
// small replies) and values it shares with the table. A gathered value of a thousand ranks is a
// megabyte that every other rank gets: queued by reference, it is not copied once per
// connection (docs/rdma.md, "Control plane at scale").
#include <cstddef>
#include <deque>
#include <memory>
#include <string>
#include <string_view>

#include <sys/types.h>

namespace railgauge {

class Outbox {
public:
  void append(std::string bytes);
  // `value` is sent as it is; it must not change while queued (the table replaces a value by a
  // new string, never in place).
  void append_shared(std::shared_ptr<const std::string> value);
  bool empty() const { return pieces_.empty(); }
  // Sends what the socket takes now (non-blocking) and drops what went out. Returns send's
  // result: bytes sent, or -1 with errno set (EAGAIN when the socket is full).
  ssize_t send_some(int fd);

private:
  struct Piece {
    std::string own;
    std::shared_ptr<const std::string> shared;
    std::string_view bytes() const { return shared ? std::string_view(*shared) : own; }
  };
  std::deque<Piece> pieces_;
  std::size_t front_sent_ = 0; // bytes of the front piece already sent
};

} // namespace railgauge
