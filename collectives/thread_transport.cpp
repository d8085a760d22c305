#include "collectives/thread_transport.h"

#include <cstring>
#include <stdexcept>

#include <fmt/format.h>

#include "harness/error.h"

namespace railgauge::collectives {

ThreadMailboxes::ThreadMailboxes(int ranks, std::chrono::milliseconds timeout, Delivery delivery)
    : ranks_(ranks), timeout_(timeout), delivery_(delivery),
      boxes_(static_cast<std::size_t>(ranks * ranks)) {}

ThreadMailboxes::Box &ThreadMailboxes::box(int from, int to) {
  return boxes_[static_cast<std::size_t>(from * ranks_ + to)];
}

std::uint64_t ThreadMailboxes::post(int from, int to, const std::byte *data, std::size_t bytes) {
  if (to < 0 || to >= ranks_ || to == from)
    throw std::invalid_argument(fmt::format("rank {} sends to invalid peer {}", from, to));
  auto &b = box(from, to);
  std::uint64_t sequence = 0;
  {
    std::lock_guard lock(b.mutex);
    b.messages.emplace_back(data, data + bytes);
    sequence = ++b.posted;
  }
  b.ready.notify_all();
  return sequence;
}

void ThreadMailboxes::take(int from, int to, std::byte *data, std::size_t bytes) {
  if (from < 0 || from >= ranks_ || to == from)
    throw std::invalid_argument(fmt::format("rank {} receives from invalid peer {}", to, from));
  auto &b = box(from, to);
  std::unique_lock lock(b.mutex);
  if (!b.ready.wait_for(lock, timeout_, [&] { return !b.messages.empty(); }))
    throw BackendError(
        fmt::format("rank {}: no message from rank {} within {} ms", to, from, timeout_.count()));
  auto message = std::move(b.messages.front());
  b.messages.pop_front();
  ++b.taken;
  b.ready.notify_all(); // a rendezvous sender waits for `taken`
  if (message.size() != bytes)
    throw std::logic_error(fmt::format("rank {} expected {} bytes from rank {}, got {}", to, bytes,
                                       from, message.size()));
  if (bytes)
    std::memcpy(data, message.data(), bytes);
}

void ThreadMailboxes::wait_taken(int from, int to, std::uint64_t sequence) {
  auto &b = box(from, to);
  std::unique_lock lock(b.mutex);
  if (!b.ready.wait_for(lock, timeout_, [&] { return b.taken >= sequence; }))
    throw BackendError(fmt::format("rank {}: its send to rank {} was not received within {} ms "
                                   "(with synchronous sends, the algorithm deadlocks)",
                                   from, to, timeout_.count()));
}

void ThreadTransport::send(int peer, const std::byte *data, std::size_t bytes) {
  const auto sequence = boxes_.post(rank_, peer, data, bytes);
  if (boxes_.delivery() == Delivery::rendezvous)
    boxes_.wait_taken(rank_, peer, sequence);
}

void ThreadTransport::recv(int peer, std::byte *data, std::size_t bytes) {
  boxes_.take(peer, rank_, data, bytes);
}

void ThreadTransport::sendrecv(int to, const std::byte *send_data, std::size_t send_bytes, int from,
                               std::byte *recv_data, std::size_t recv_bytes) {
  // A negative peer leaves that direction out (transport.h).
  const auto sequence = to >= 0 ? boxes_.post(rank_, to, send_data, send_bytes) : 0;
  if (from >= 0)
    recv(from, recv_data, recv_bytes);
  if (to >= 0 && boxes_.delivery() == Delivery::rendezvous)
    boxes_.wait_taken(rank_, to, sequence);
}

} // namespace railgauge::collectives
