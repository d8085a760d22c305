#pragma once
// Ranks as threads of one process: a Transport whose messages are copied through per-pair
// mailboxes (gloo's test/base_test.h idea). Sends are buffered and never block, so sendrecv is
// a send followed by a recv. A recv that waits longer than the timeout throws naming the peer,
// so a broken algorithm fails its test instead of hanging it.
#include <chrono>
#include <condition_variable>
#include <deque>
#include <mutex>
#include <vector>

#include "collectives/transport.h"

namespace railgauge::collectives {

class ThreadMailboxes {
public:
  explicit ThreadMailboxes(int ranks, std::chrono::milliseconds timeout = std::chrono::seconds(30));
  int size() const { return ranks_; }
  void post(int from, int to, const std::byte *data, std::size_t bytes);
  void take(int from, int to, std::byte *data, std::size_t bytes);

private:
  struct Box {
    std::mutex mutex;
    std::condition_variable ready;
    std::deque<std::vector<std::byte>> messages;
  };
  int ranks_;
  std::chrono::milliseconds timeout_;
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
