#pragma once
// Ranks as threads of one process: a Transport whose messages are copied through per-pair
// mailboxes (gloo's test/base_test.h idea). A recv that waits longer than the timeout throws
// naming the peer, so a broken algorithm fails its test instead of hanging it.
//
// Delivery::buffered: a send never blocks (MPI's eager protocol for small messages).
// Delivery::rendezvous: a send returns only once the receiver has taken the message, as
// MPI_Ssend, a large MPI message, or a stream-ordered ncclSend behave; an algorithm in which
// two ranks each send to the other before receiving then times out instead of passing, and
// sendrecv posts its send before receiving so that an exchange does not.
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <mutex>
#include <vector>

#include "collectives/transport.h"

namespace railgauge::collectives {

enum class Delivery { buffered, rendezvous };

class ThreadMailboxes {
public:
  explicit ThreadMailboxes(int ranks, std::chrono::milliseconds timeout = std::chrono::seconds(30),
                           Delivery delivery = Delivery::buffered);
  int size() const { return ranks_; }
  Delivery delivery() const { return delivery_; }
  // Queues a message and returns its sequence number on the (from, to) mailbox.
  std::uint64_t post(int from, int to, const std::byte *data, std::size_t bytes);
  void take(int from, int to, std::byte *data, std::size_t bytes);
  // Waits until message `sequence` from `from` to `to` has been taken.
  void wait_taken(int from, int to, std::uint64_t sequence);

private:
  struct Box {
    std::mutex mutex;
    std::condition_variable ready;
    std::deque<std::vector<std::byte>> messages;
    std::uint64_t posted = 0, taken = 0;
  };
  Box &box(int from, int to);
  int ranks_;
  std::chrono::milliseconds timeout_;
  Delivery delivery_;
  std::vector<Box> boxes_; // [from * ranks + to]
};

class ThreadTransport final : public Transport {
public:
  ThreadTransport(ThreadMailboxes &boxes, int rank) : boxes_(boxes), rank_(rank) {}
  int rank() const override { return rank_; }
  int size() const override { return boxes_.size(); }
  void send(int peer, const std::byte *data, std::size_t bytes) override;
  void recv(int peer, std::byte *data, std::size_t bytes) override;
  void sendrecv(int to, const std::byte *send_data, std::size_t send_bytes, int from,
                std::byte *recv_data, std::size_t recv_bytes) override;

private:
  ThreadMailboxes &boxes_;
  int rank_;
};

} // namespace railgauge::collectives
