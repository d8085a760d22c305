#include "rdma/verbs/traffic.h"

#include <infiniband/verbs.h>

#include <chrono>
#include <thread>

#include <fmt/format.h>

#include "harness/error.h"
#include "rdma/verbs/verbs_error.h"

namespace railgauge::rdma {
namespace {

using Clock = std::chrono::steady_clock;
constexpr int kPollBatch = 64;

std::size_t round_up_64(std::size_t v) { return (v + 63) / 64 * 64; }

ibv_wr_opcode opcode(Verb verb) {
  return verb == Verb::write  ? IBV_WR_RDMA_WRITE
         : verb == Verb::read ? IBV_WR_RDMA_READ
                              : IBV_WR_SEND;
}

double seconds(Clock::time_point a, Clock::time_point b) {
  return std::chrono::duration<double>(b - a).count();
}

// One signaled single-WR post from local `addr` to remote `remote_addr`.
void post_one(Endpoint &ep, Verb verb, std::uint64_t addr, std::size_t bytes,
              std::uint64_t remote_addr, bool use_inline, std::uint64_t wr_id) {
  ibv_sge sge{addr, static_cast<std::uint32_t>(bytes), ep.lkey()};
  ibv_send_wr wr{};
  wr.wr_id = wr_id;
  wr.sg_list = &sge;
  wr.num_sge = 1;
  wr.opcode = opcode(verb);
  wr.send_flags = IBV_SEND_SIGNALED | (use_inline && verb != Verb::read ? IBV_SEND_INLINE : 0);
  wr.wr.rdma.remote_addr = remote_addr;
  wr.wr.rdma.rkey = ep.remote().rkey;
  ibv_send_wr *bad = nullptr;
  RAILGAUGE_VERBS_CALL(ibv_post_send(ep.qp(0), &wr, &bad));
}

} // namespace

void check_shape(const TrafficShape &shape, int send_depth) {
  if (shape.message_bytes < 1 || shape.message_bytes > (std::size_t{1} << 31))
    throw InputError(fmt::format("message size {} bytes is out of range", shape.message_bytes),
                     "axis size_bytes", "use 1 B to 2 GiB");
  if (shape.post_list < 1 || shape.post_list > send_depth)
    throw InputError(
        fmt::format("post_list {} must be in 1..tx_depth ({})", shape.post_list, send_depth),
        "axis post_list", "lower post_list or raise tx_depth");
  if (shape.cq_moderation < 1 || send_depth % shape.cq_moderation != 0)
    throw InputError(
        fmt::format("cq_moderation {} must divide tx_depth {}", shape.cq_moderation, send_depth),
        "axis cq_moderation", "use a divisor of tx_depth, e.g. 1, 16, 64");
}

Streamer::Streamer(Endpoint &ep, const TrafficShape &shape)
    : ep_(ep), shape_(shape), posted_(ep.config().qps, 0), retired_(ep.config().qps, 0),
      unsignaled_(ep.config().qps, 0) {
  check_shape(shape, ep.config().send_depth);
}

void Streamer::post_chain(int qp, int count, bool force_signal_last) {
  std::vector<ibv_sge> sges(static_cast<std::size_t>(count));
  std::vector<ibv_send_wr> wrs(static_cast<std::size_t>(count));
  for (int j = 0; j < count; ++j) {
    auto &sge = sges[static_cast<std::size_t>(j)];
    auto &wr = wrs[static_cast<std::size_t>(j)];
    sge = {ep_.slot_addr(qp), static_cast<std::uint32_t>(shape_.message_bytes), ep_.lkey()};
    wr.sg_list = &sge;
    wr.num_sge = 1;
    wr.opcode = opcode(shape_.verb);
    wr.wr.rdma.remote_addr = ep_.remote_slot_addr(qp);
    wr.wr.rdma.rkey = ep_.remote().rkey;
    if (shape_.use_inline && shape_.verb != Verb::read)
      wr.send_flags |= IBV_SEND_INLINE;
    int &pending = unsignaled_[static_cast<std::size_t>(qp)];
    ++pending;
    if (pending == shape_.cq_moderation || (force_signal_last && j == count - 1)) {
      // The signaled WR retires itself and every unsignaled one before it on this QP.
      wr.send_flags |= IBV_SEND_SIGNALED;
      wr.wr_id = (static_cast<std::uint64_t>(qp) << 32) | static_cast<std::uint64_t>(pending);
      pending = 0;
    }
    wr.next = j + 1 < count ? &wrs[static_cast<std::size_t>(j + 1)] : nullptr;
  }
  ibv_send_wr *bad = nullptr;
  RAILGAUGE_VERBS_CALL(ibv_post_send(ep_.qp(qp), wrs.data(), &bad));
  posted_[static_cast<std::size_t>(qp)] += static_cast<std::uint64_t>(count);
}

void Streamer::reap() {
  ibv_wc wcs[kPollBatch];
  const int got = ep_.poll_send(wcs, kPollBatch);
  for (int i = 0; i < got; ++i) {
    const auto qp = static_cast<std::size_t>(wcs[i].wr_id >> 32);
    const std::uint64_t n = wcs[i].wr_id & 0xffffffffu;
    retired_[qp] += n;
    completed_ += n;
  }
  if (shape_.verb == Verb::send && shape_.also_receives)
    repost_completed_receives(ep_); // bidirectional SEND: this side also receives
}

std::uint64_t Streamer::run(std::uint64_t messages) {
  const std::uint64_t start = completed_;
  const std::uint64_t depth = static_cast<std::uint64_t>(ep_.config().send_depth);
  const int qps = ep_.config().qps;
  const auto began = Clock::now();
  std::uint64_t polls = 0;
  while (completed_ - start < messages) {
    for (int k = 0; k < qps; ++k) {
      const int q = (next_qp_ + k) % qps;
      const auto qi = static_cast<std::size_t>(q);
      if (posted_[qi] - retired_[qi] + static_cast<std::uint64_t>(shape_.post_list) <= depth)
        post_chain(q, shape_.post_list, false);
    }
    next_qp_ = (next_qp_ + 1) % qps;
    reap();
    if (++polls % (1u << 20) == 0 && seconds(began, Clock::now()) > shape_.progress_timeout_s)
      throw BackendError(fmt::format("no progress: {} of {} messages completed in {} s",
                                     completed_ - start, messages, shape_.progress_timeout_s));
  }
  return completed_ - start;
}

void Streamer::drain(double timeout_s) {
  const auto deadline = Clock::now() + std::chrono::duration<double>(timeout_s);
  const std::uint64_t depth = static_cast<std::uint64_t>(ep_.config().send_depth);
  for (int q = 0; q < ep_.config().qps; ++q) {
    const auto qi = static_cast<std::size_t>(q);
    if (unsignaled_[qi] == 0)
      continue;
    while (posted_[qi] - retired_[qi] + 1 > depth) {
      reap();
      if (Clock::now() > deadline)
        throw BackendError("send queue did not drain");
    }
    post_chain(q, 1, true);
  }
  for (int q = 0; q < ep_.config().qps; ++q)
    while (retired_[static_cast<std::size_t>(q)] < posted_[static_cast<std::size_t>(q)]) {
      reap();
      if (Clock::now() > deadline)
        throw BackendError(fmt::format("{} messages still outstanding after {} s",
                                       posted_[static_cast<std::size_t>(q)] -
                                           retired_[static_cast<std::size_t>(q)],
                                       timeout_s));
    }
}

std::size_t PingPongSlots::slot_bytes(std::size_t message_bytes) {
  return 2 * round_up_64(message_bytes);
}
std::size_t PingPongSlots::out_offset(std::size_t message_bytes) {
  return round_up_64(message_bytes);
}

PingSender::PingSender(Endpoint &ep, const TrafficShape &shape)
    : ep_(ep), shape_(shape), signal_every_(std::max(1, ep.config().send_depth / 2)) {}

void PingSender::post(std::uint64_t addr, std::uint64_t remote_addr) {
  if (outstanding_ >= ep_.config().send_depth) {
    const auto began = Clock::now();
    while (outstanding_ >= ep_.config().send_depth) {
      reap();
      if (seconds(began, Clock::now()) > shape_.progress_timeout_s)
        throw BackendError(
            fmt::format("{} sends not completed in {} s", outstanding_, shape_.progress_timeout_s));
    }
  }
  ibv_sge sge{addr, static_cast<std::uint32_t>(shape_.message_bytes), ep_.lkey()};
  ibv_send_wr wr{};
  wr.sg_list = &sge;
  wr.num_sge = 1;
  wr.opcode = opcode(shape_.verb);
  wr.wr.rdma.remote_addr = remote_addr;
  wr.wr.rdma.rkey = ep_.remote().rkey;
  if (shape_.use_inline)
    wr.send_flags |= IBV_SEND_INLINE;
  if (++unsignaled_ == signal_every_) {
    wr.send_flags |= IBV_SEND_SIGNALED;
    wr.wr_id = static_cast<std::uint64_t>(unsignaled_); // the sends it retires
    unsignaled_ = 0;
  }
  ibv_send_wr *bad = nullptr;
  RAILGAUGE_VERBS_CALL(ibv_post_send(ep_.qp(0), &wr, &bad));
  ++outstanding_;
}

void PingSender::reap() {
  ibv_wc wcs[kPollBatch];
  const int got = ep_.poll_send(wcs, kPollBatch);
  for (int i = 0; i < got; ++i)
    outstanding_ -= static_cast<int>(wcs[i].wr_id);
}

PingPong::PingPong(Endpoint &ep, const TrafficShape &shape)
    : ep_(ep), shape_(shape), sender_(ep, shape) {
  fill_pattern(ep.slot(0) + PingPongSlots::out_offset(shape.message_bytes), shape.message_bytes,
               shape.message_bytes);
  if (shape.verb == Verb::send)
    ep.post_recvs(0, ep.config().recv_depth);
}

void PingPong::round_trip() {
  const std::size_t size = shape_.message_bytes;
  std::uint8_t *out = ep_.slot(0) + PingPongSlots::out_offset(size);
  volatile std::uint8_t *in = ep_.slot(0);
  seq_ = static_cast<std::uint8_t>(seq_ % 255 + 1);
  // No clock read on the way of a round trip that is answered (see serve()): the timeout's
  // clock starts once 65536 polls went unanswered.
  Clock::time_point began{};
  std::uint64_t spins = 0;
  auto check_timeout = [&] {
    if (++spins % (1u << 16) != 0)
      return;
    const auto now = Clock::now();
    if (spins == (1u << 16))
      began = now;
    else if (seconds(began, now) > shape_.progress_timeout_s)
      throw BackendError(fmt::format("round trip {} got no answer in {} s", count_ + 1,
                                     shape_.progress_timeout_s));
  };
  ibv_wc wcs[kPollBatch];
  if (shape_.verb == Verb::read) {
    post_one(ep_, Verb::read, ep_.slot_addr(0), size,
             ep_.remote_slot_addr(0) + PingPongSlots::out_offset(size), false, 1);
    while (ep_.poll_send(wcs, 1) == 0)
      check_timeout();
    ++count_;
    return;
  }
  out[size - 1] = seq_;
  sender_.post(reinterpret_cast<std::uint64_t>(out), ep_.remote_slot_addr(0));
  // While the message travels: the receive the last answer used goes back to the queue (the
  // peer's answer to this message needs one of the others), and finished sends are retired.
  if (receives_to_repost_ > 0) {
    ep_.post_recvs(0, receives_to_repost_);
    receives_to_repost_ = 0;
  }
  sender_.reap();
  if (shape_.verb == Verb::write) {
    while (in[size - 1] != seq_)
      check_timeout();
  } else {
    while (ep_.poll_recv(wcs, 1) == 0)
      check_timeout();
    ++receives_to_repost_;
  }
  ++count_;
}

int repost_completed_receives(Endpoint &ep) {
  ibv_wc wcs[kPollBatch];
  const int got = ep.poll_recv(wcs, kPollBatch);
  for (int i = 0; i < got; ++i)
    ep.post_recvs(static_cast<int>(wcs[i].wr_id), 1);
  return got;
}

ServeResult serve(Endpoint &ep, const TrafficShape &shape, Pattern pattern,
                  const std::atomic<bool> &abort, double deadline_s) {
  const auto began = Clock::now();
  volatile std::uint64_t *control = ep.control();
  ServeResult result;
  Clock::time_point first{}, last{};
  // The stop word is read on every poll, the clock for the deadline on every 4096th only: where
  // the clocksource is not the TSC (a TCG guest's HPET) a clock read is a system call, and a
  // ping that arrives during one waits for it.
  std::uint64_t polls = 0;
  auto stop = [&] {
    if (*control != 0 || abort.load(std::memory_order_relaxed))
      return true;
    if (++polls % 4096 == 0 && seconds(began, Clock::now()) > deadline_s)
      throw BackendError(fmt::format("the peer never said stop within {} s", deadline_s));
    return false;
  };
  // active_s (the time between the first and last message handled) is what a bidirectional
  // point needs; a one-way SEND receiver reads no clock per message.
  const bool timed = pattern == Pattern::bandwidth_bidirectional;
  auto handled = [&](std::uint64_t n) {
    if (n == 0)
      return;
    if (timed) {
      last = Clock::now();
      if (result.messages == 0)
        first = last;
    }
    result.messages += n;
  };
  ibv_wc wcs[kPollBatch];
  const std::size_t size = shape.message_bytes;
  if (pattern == Pattern::bandwidth_bidirectional) {
    Streamer streamer(ep, shape);
    const std::uint64_t chunk = std::max<std::uint64_t>(
        1, static_cast<std::uint64_t>(ep.config().qps) * shape.cq_moderation);
    while (!stop())
      handled(streamer.run(chunk));
    streamer.drain(shape.progress_timeout_s);
  } else if (pattern == Pattern::latency && shape.verb != Verb::read) {
    // Answers each ping at once; everything else (the deadline's clock, reposting the receive,
    // retiring sends) waits until the answer is posted.
    std::uint8_t *out = ep.slot(0) + PingPongSlots::out_offset(size);
    volatile std::uint8_t *in = ep.slot(0);
    PingSender sender(ep, shape);
    std::uint8_t expected = 1;
    while (!stop()) {
      if (shape.verb == Verb::write) {
        if (in[size - 1] != expected)
          continue;
      } else {
        if (ep.poll_recv(wcs, 1) == 0)
          continue;
      }
      out[size - 1] = expected;
      sender.post(reinterpret_cast<std::uint64_t>(out), ep.remote_slot_addr(0));
      if (shape.verb == Verb::send)
        ep.post_recvs(0, 1); // after the answer: the next ping lands in one of the others
      expected = static_cast<std::uint8_t>(expected % 255 + 1);
      ++result.messages;
      sender.reap();
    }
  } else if (pattern == Pattern::bandwidth && shape.verb == Verb::send) {
    while (!stop())
      handled(static_cast<std::uint64_t>(repost_completed_receives(ep)));
  } else {
    // One-sided: the peer's WRITEs and READs need nothing from this CPU, so it sleeps between
    // looks at the stop word, as perftest's passive side blocks on its socket. Each wake-up costs
    // the CPU that the measuring side may share (a vCPU of an emulated guest, a hyperthread), so
    // there are few: 500 a second, and the stop is seen within 2 ms.
    while (!stop())
      std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
  result.active_s = timed && result.messages > 0 ? seconds(first, last) : 0.0;
  return result;
}

} // namespace railgauge::rdma
