#include "harness/store/outbox.h"

#include <algorithm>
#include <sys/socket.h>
#include <sys/uio.h>

namespace railgauge {
namespace {

// Pieces handed to one sendmsg: a reply's head and its value, and a few behind them.
constexpr std::size_t kMaxPiecesPerSend = 16;

} // namespace

void Outbox::append(std::string bytes) {
  if (bytes.empty())
    return;
  // Small replies queued behind one another go out in one piece (appending leaves the bytes
  // already sent of the front piece where they were).
  if (!pieces_.empty() && !pieces_.back().shared)
    pieces_.back().own += bytes;
  else
    pieces_.push_back({std::move(bytes), nullptr});
}

void Outbox::append_shared(std::shared_ptr<const std::string> value) {
  if (value && !value->empty())
    pieces_.push_back({{}, std::move(value)});
}

ssize_t Outbox::send_some(int fd) {
  iovec iov[kMaxPiecesPerSend];
  std::size_t count = 0;
  for (const auto &p : pieces_) {
    if (count == kMaxPiecesPerSend)
      break;
    auto bytes = p.bytes();
    if (count == 0)
      bytes.remove_prefix(front_sent_);
    iov[count++] = {const_cast<char *>(bytes.data()), bytes.size()};
  }
  msghdr msg{};
  msg.msg_iov = iov;
  msg.msg_iovlen = count;
  const ssize_t n = ::sendmsg(fd, &msg, MSG_NOSIGNAL | MSG_DONTWAIT);
  for (std::size_t left = n > 0 ? static_cast<std::size_t>(n) : 0; left > 0;) {
    const std::size_t rest = pieces_.front().bytes().size() - front_sent_;
    const std::size_t taken = std::min(left, rest);
    left -= taken;
    front_sent_ += taken;
    if (taken == rest) {
      pieces_.pop_front();
      front_sent_ = 0;
    }
  }
  return n;
}

} // namespace railgauge
