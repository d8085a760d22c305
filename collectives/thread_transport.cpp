#include "collectives/thread_transport.h"

#include <cstring>
#include <stdexcept>

#include <fmt/format.h>

#include "harness/error.h"

namespace railgauge::collectives {

ThreadMailboxes::ThreadMailboxes(int ranks, std::chrono::milliseconds timeout)
    : ranks_(ranks), timeout_(timeout), boxes_(static_cast<std::size_t>(ranks * ranks)) {}

void ThreadMailboxes::post(int from, int to, const std::byte *data, std::size_t bytes) {
  if (to < 0 || to >= ranks_ || to == from)
    throw std::invalid_argument(fmt::format("rank {} sends to invalid peer {}", from, to));
  auto &box = boxes_[static_cast<std::size_t>(from * ranks_ + to)];
  {
    std::lock_guard lock(box.mutex);
    box.messages.emplace_back(data, data + bytes);
  }
  box.ready.notify_all();
}

void ThreadMailboxes::take(int from, int to, std::byte *data, std::size_t bytes) {
  if (from < 0 || from >= ranks_ || to == from)
    throw std::invalid_argument(fmt::format("rank {} receives from invalid peer {}", to, from));
  auto &box = boxes_[static_cast<std::size_t>(from * ranks_ + to)];
  std::unique_lock lock(box.mutex);
  if (!box.ready.wait_for(lock, timeout_, [&] { return !box.messages.empty(); }))
    throw BackendError(
        fmt::format("rank {}: no message from rank {} within {} ms", to, from, timeout_.count()));
  auto message = std::move(box.messages.front());
  box.messages.pop_front();
  if (message.size() != bytes)
    throw std::logic_error(fmt::format("rank {} expected {} bytes from rank {}, got {}", to, bytes,
                                       from, message.size()));
  if (bytes)
    std::memcpy(data, message.data(), bytes);
}

void ThreadTransport::send(int peer, const std::byte *data, std::size_t bytes) {
  boxes_.post(rank_, peer, data, bytes);
}

void ThreadTransport::recv(int peer, std::byte *data, std::size_t bytes) {
  boxes_.take(peer, rank_, data, bytes);
}

void ThreadTransport::sendrecv(int to, const std::byte *send_data, std::size_t send_bytes, int from,
                               std::byte *recv_data, std::size_t recv_bytes) {
  send(to, send_data, send_bytes);
  recv(from, recv_data, recv_bytes);
}

} // namespace railgauge::collectives
