#pragma once
// The traffic patterns over a connected Endpoint: a bandwidth streamer that keeps every send
// queue full (post lists, CQ moderation, inline), the latency ping-pongs (perftest's
// write_lat/send_lat: spin on the last byte of the peer-written buffer, or on the receive
// completion) and READ round trips, and the passive side of each.
#include <atomic>
#include <cstdint>
#include <vector>

#include "rdma/data_pattern.h"
#include "rdma/verbs/endpoint.h"
#include "rdma/verbs_pattern.h"

namespace railgauge::rdma {

struct TrafficShape {
  Verb verb = Verb::write;
  std::size_t message_bytes = 65536;
  int post_list = 1;     // WRs chained per ibv_post_send
  int cq_moderation = 1; // one signaled WR per this many, per QP
  bool use_inline = false;
  // The streaming side also receives the peer's SENDs (bidirectional): only then does it repost
  // receives between its own completions.
  bool also_receives = false;
  // Seconds without progress (no completion, no answer) before the peer counts as gone.
  double progress_timeout_s = 60;
};

// Throws InputError when the shape cannot run on queues of `send_depth` entries.
void check_shape(const TrafficShape &shape, int send_depth);

class Streamer {
public:
  Streamer(Endpoint &ep, const TrafficShape &shape);
  // Completes at least `messages` more messages (round-robin over the QPs), posting while it
  // waits, so the queues never drain between calls. Returns how many completed.
  std::uint64_t run(std::uint64_t messages);
  // Waits for every posted message (signaling the tail of each QP first).
  void drain(double timeout_s);
  std::uint64_t completed() const { return completed_; }

private:
  void post_chain(int qp, int count, bool force_signal_last);
  void reap();
  Endpoint &ep_;
  TrafficShape shape_;
  std::vector<std::uint64_t> posted_, retired_;
  std::vector<int> unsignaled_;
  std::uint64_t completed_ = 0;
  int next_qp_ = 0;
};

// Slot layout for the ping-pongs: [in: written by the peer | out: what this side sends].
struct PingPongSlots {
  static std::size_t slot_bytes(std::size_t message_bytes);
  static std::size_t out_offset(std::size_t message_bytes);
};

// The sends of a ping-pong side on QP 0. Only one send per half send queue is signaled (perftest
// signals one per cq_mod), so that most round trips make no send completion to generate and
// poll; a signaled completion retires itself and the unsignaled sends before it. Posting waits
// for completions only when the queue is full.
class PingSender {
public:
  PingSender(Endpoint &ep, const TrafficShape &shape);
  void post(std::uint64_t addr, std::uint64_t remote_addr);
  // Retires whatever completed, without waiting.
  void reap();

private:
  Endpoint &ep_;
  TrafficShape shape_;
  int signal_every_;
  int unsignaled_ = 0;
  int outstanding_ = 0;
};

// The active side of one round trip on QP 0, iteration `seq` (1..255, the tag in the last
// byte). WRITE: write out -> peer's in, spin on in[last] == seq. SEND: send out, wait for the
// receive completion. READ: read the peer's out into in, wait for the completion. Everything
// the answer does not wait for (reposting the last receive, reaping send completions) is done
// after the next post, while the message is on its way.
class PingPong {
public:
  PingPong(Endpoint &ep, const TrafficShape &shape);
  void round_trip();
  std::uint64_t round_trips() const { return count_; }

private:
  Endpoint &ep_;
  TrafficShape shape_;
  PingSender sender_;
  std::uint8_t seq_ = 0;
  std::uint64_t count_ = 0;
  int receives_to_repost_ = 0;
};

// Gives every completed receive back to its QP (SEND); returns how many completed.
int repost_completed_receives(Endpoint &ep);

// The passive side until the peer sets this side's control word (or `abort`, or the
// deadline): answers pings (latency), reposts receives (SEND bandwidth), streams back
// (bidirectional bandwidth) or just waits (one-sided WRITE/READ bandwidth, READ latency).
// Returns the messages this side completed or received.
struct ServeResult {
  std::uint64_t messages = 0;
  double active_s = 0; // from the first to the last message this side handled
};
ServeResult serve(Endpoint &ep, const TrafficShape &shape, Pattern pattern,
                  const std::atomic<bool> &abort, double deadline_s);

} // namespace railgauge::rdma
