#pragma once
// The point-to-point interface the textbook algorithms are written against (gloo's
// transport/pair.h, reduced to what they need): blocking send, recv and a combined sendrecv on
// byte buffers, plus the local memory operations an algorithm performs between messages, so
// that the same algorithm runs on host memory (MPI, threads) and on device memory (NCCL).
//
// Messages between one pair of ranks arrive in the order they were sent. Every blocking call
// must end in bounded time: an implementation throws (naming the peer) instead of hanging.
#include <cstddef>
#include <memory>

#include "collectives/dtype.h"

namespace railgauge::collectives {

class Transport {
public:
  virtual ~Transport() = default;
  virtual int rank() const = 0;
  virtual int size() const = 0;
  // Sends to `to` while receiving from `from`, without deadlock when the peers do the same; a
  // negative peer leaves that direction out.
  virtual void sendrecv(int to, const std::byte *send_data, std::size_t send_bytes, int from,
                        std::byte *recv_data, std::size_t recv_bytes) = 0;
  // One direction of sendrecv, unless an implementation has something better.
  virtual void send(int peer, const std::byte *data, std::size_t bytes);
  virtual void recv(int peer, std::byte *data, std::size_t bytes);

  // Local memory: host memory unless an implementation says otherwise.
  class Scratch {
  public:
    virtual ~Scratch() = default;
    virtual std::byte *data() = 0;
  };
  virtual std::unique_ptr<Scratch> scratch(std::size_t bytes);
  virtual void copy(std::byte *dst, const std::byte *src, std::size_t bytes);
  // acc = op(acc, in), `count` elements.
  virtual void reduce(DType type, RedOp op, std::byte *acc, const std::byte *in, std::size_t count);
};

} // namespace railgauge::collectives
