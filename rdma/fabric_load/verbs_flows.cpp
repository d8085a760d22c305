// The verbs sides of the fabric-load rounds (flow_rounds.h): RC WRITE streams whose every QP
// counts its own completions (the per-QP spread of rdma.qp_scaling), the incast's endpoints
// (a sender's one, the receiver's one per sender) and the probe's ping-pong beside its load.
#include <infiniband/verbs.h>

#include <atomic>
#include <chrono>
#include <optional>

#include <fmt/format.h>

#include "harness/device_fields.h"
#include "harness/error.h"
#include "rdma/fabric_load/fabric_figures.h"
#include "rdma/fabric_load/fabric_load_spec.h"
#include "rdma/per_call_timer.h"
#include "rdma/stopping_rule.h"
#include "rdma/verbs/endpoint.h"
#include "rdma/verbs/traffic.h"
#include "rdma/verbs/verbs_error.h"
#include "records/rdma_record.h"

namespace railgauge::rdma {
namespace {

using Clock = std::chrono::steady_clock;
constexpr int kPollBatch = 64;
constexpr std::string_view kFailedInfo = "error: ";

// WRITE from slot q to the peer's slot q on every QP, round-robin, each send queue kept full. One
// WR in `moderation` is signaled and retires the ones before it on its QP, so completions count
// per QP.
class FlowStreamer {
public:
  FlowStreamer(Endpoint &ep, std::size_t bytes, int moderation, double progress_timeout_s)
      : ep_(ep), bytes_(bytes), moderation_(moderation), timeout_s_(progress_timeout_s),
        posted_(static_cast<std::size_t>(ep.config().qps), 0),
        retired_(static_cast<std::size_t>(ep.config().qps), 0),
        unsignaled_(static_cast<std::size_t>(ep.config().qps), 0) {}

  // Completes at least `messages` more.
  void run(std::uint64_t messages) {
    const std::uint64_t target = completed_ + messages;
    const auto began = Clock::now();
    std::uint64_t polls = 0;
    while (completed_ < target) {
      fill();
      reap();
      if (++polls % (1u << 16) == 0 &&
          std::chrono::duration<double>(Clock::now() - began).count() > timeout_s_)
        throw BackendError(fmt::format("no progress: {} of {} messages completed in {} s",
                                       messages - (target - completed_), messages, timeout_s_));
    }
  }
  // Signals each QP's tail and waits for every posted message.
  void drain() {
    const auto deadline = Clock::now() + std::chrono::duration_cast<Clock::duration>(
                                             std::chrono::duration<double>(timeout_s_));
    for (int q = 0; q < qps(); ++q) {
      const auto qi = static_cast<std::size_t>(q);
      if (unsignaled_[qi] == 0)
        continue;
      while (posted_[qi] - retired_[qi] >= depth())
        wait_step(deadline);
      post(q, true);
    }
    for (int q = 0; q < qps(); ++q)
      while (retired_[static_cast<std::size_t>(q)] < posted_[static_cast<std::size_t>(q)])
        wait_step(deadline);
  }
  std::uint64_t completed() const { return completed_; }
  const std::vector<std::uint64_t> &completed_per_qp() const { return retired_; }

private:
  int qps() const { return ep_.config().qps; }
  std::uint64_t depth() const { return static_cast<std::uint64_t>(ep_.config().send_depth); }
  void wait_step(Clock::time_point deadline) {
    reap();
    if (Clock::now() > deadline)
      throw BackendError(fmt::format("WRITEs still outstanding after {} s", timeout_s_));
  }
  void fill() {
    for (int q = 0; q < qps(); ++q) {
      const auto qi = static_cast<std::size_t>(q);
      while (posted_[qi] - retired_[qi] < depth())
        post(q, false);
    }
  }
  void post(int q, bool force_signal) {
    const auto qi = static_cast<std::size_t>(q);
    ibv_sge sge{ep_.slot_addr(q), static_cast<std::uint32_t>(bytes_), ep_.lkey()};
    ibv_send_wr wr{};
    wr.sg_list = &sge;
    wr.num_sge = 1;
    wr.opcode = IBV_WR_RDMA_WRITE;
    wr.wr.rdma.remote_addr = ep_.remote_slot_addr(q);
    wr.wr.rdma.rkey = ep_.remote().rkey;
    if (++unsignaled_[qi] == moderation_ || force_signal) {
      wr.send_flags = IBV_SEND_SIGNALED;
      wr.wr_id =
          (static_cast<std::uint64_t>(q) << 32) | static_cast<std::uint64_t>(unsignaled_[qi]);
      unsignaled_[qi] = 0;
    }
    ibv_send_wr *bad = nullptr;
    RAILGAUGE_VERBS_CALL(ibv_post_send(ep_.qp(q), &wr, &bad));
    ++posted_[qi];
  }
  void reap() {
    ibv_wc wcs[kPollBatch];
    const int got = ep_.poll_send(wcs, kPollBatch);
    for (int i = 0; i < got; ++i) {
      const auto qi = static_cast<std::size_t>(wcs[i].wr_id >> 32);
      const std::uint64_t n = wcs[i].wr_id & 0xffffffffu;
      retired_[qi] += n;
      completed_ += n;
    }
  }

  Endpoint &ep_;
  std::size_t bytes_;
  int moderation_;
  double timeout_s_;
  std::vector<std::uint64_t> posted_, retired_;
  std::vector<int> unsignaled_;
  std::uint64_t completed_ = 0;
};

// One signaled WRITE in 16 for messages under 64 KiB (the completion would cost more than the
// message), every one above.
int moderation_for(std::size_t bytes, int depth) {
  return bytes >= 65536 ? 1 : std::min(16, depth);
}

std::vector<std::uint32_t> flow_labels(const FabricLoadSpec &s, int sender, int first_qp, int qps) {
  std::vector<std::uint32_t> labels;
  if (s.set_flow_labels)
    for (int q = 0; q < qps; ++q)
      labels.push_back(flow_label_of(sender % 64, first_qp + q)); // 64 apart: other addresses
  return labels;
}

EndpointConfig stream_config(const FabricLoadSpec &s, const std::string &device, int qps,
                             std::vector<std::uint32_t> labels) {
  EndpointConfig c;
  c.device = device;
  c.port = s.port;
  c.gid_index = s.gid_index;
  c.traffic_class = s.traffic_class;
  c.service_level = s.service_level;
  c.qps = qps;
  c.send_depth = s.tx_depth;
  c.recv_depth = 1; // WRITE needs no receives
  c.slot_bytes = (s.size_bytes + 63) / 64 * 64;
  c.max_inline_bytes = 0;
  c.sysfs_root = s.sysfs_root;
  c.flow_labels = std::move(labels);
  return c;
}

EndpointInfo peer_info(Store &store, const std::string &key, Milliseconds timeout, int peer) {
  const std::string text = store.get(key, timeout);
  if (text.starts_with(kFailedInfo))
    throw BackendError(fmt::format("rank {} failed: {}", peer, text.substr(kFailedInfo.size())));
  return EndpointInfo::parse(text);
}

std::string info_key(const std::string &prefix, int from, int to) {
  return fmt::format("{}info/{}>{}", prefix, from, to);
}

// The RoCEv2 flow label and UDP source port of each QP of `ep`: the label set, or the one the
// kernel derives from the two QPNs when none is; the port by the kernel's formula (the NIC does
// not report it through verbs).
nlohmann::json entropy_of(const Endpoint &ep) {
  if (!ep.ethernet())
    return {{record::kFlowLabels, "not applicable: InfiniBand routes by LID (no GRH, no UDP)"}};
  nlohmann::json labels = nlohmann::json::array(), ports = nlohmann::json::array();
  const EndpointInfo local = ep.local_info();
  for (int q = 0; q < ep.config().qps; ++q) {
    const auto qi = static_cast<std::size_t>(q);
    const std::uint32_t label =
        qi < ep.config().flow_labels.size() && ep.config().flow_labels[qi] != 0
            ? ep.config().flow_labels[qi]
            : roce_flow_label_of_qpns(local.qpns[qi], ep.remote().qpns[qi]);
    labels.push_back(label);
    ports.push_back(roce_udp_source_port(label));
  }
  return {{record::kFlowLabels, labels},
          {record::kUdpSourcePorts, ports},
          {record::kUdpSourcePortOrigin,
           ep.config().flow_labels.empty()
               ? "derived here as the kernel does from the QPNs (rdma_calc_flow_label, then "
                 "rdma_flow_label_to_udp_sport); the NIC does not report it"
               : "derived here as the kernel does from the flow label set "
                 "(rdma_flow_label_to_udp_sport); the NIC does not report it"}};
}

nlohmann::json addressing_of(const Endpoint &ep) {
  return {{record::kGidIndexUsed, ep.gid().index},
          {record::kGidType, to_string(ep.gid().type)},
          {record::kLinkLayer, ep.ethernet() ? "Ethernet" : "InfiniBand"},
          {record::kMtuBytes, ep.mtu_bytes()}};
}

FlowFigures flow_over(const FlowStreamer &st, const std::vector<std::uint64_t> &before,
                      std::size_t bytes) {
  FlowFigures f;
  for (std::size_t q = 0; q < before.size(); ++q)
    f.bytes_per_qp.push_back(static_cast<double>(st.completed_per_qp()[q] - before[q]) *
                             static_cast<double>(bytes));
  return f;
}

class VerbsIncastSide final : public IncastSide {
public:
  VerbsIncastSide(const RunContext &ctx, const FabricLoadSpec &spec)
      : ctx_(ctx), s_(spec), device_(device_for_rank(spec.devices, ctx.rank())) {}

  void connect(Store &store, const std::string &prefix, int receiver,
               const std::vector<int> &senders) override {
    const int me = ctx_.rank();
    receiver_ = me == receiver;
    const std::vector<int> peers = receiver_ ? senders : std::vector<int>{receiver};
    try {
      for (int peer : peers) {
        const int sender = receiver_ ? peer : me;
        eps_.emplace_back(stream_config(s_, device_, s_.qps, flow_labels(s_, sender, 0, s_.qps)),
                          ctx_.topology().get());
        store.set(info_key(prefix, me, peer), eps_.back().local_info().serialize());
      }
    } catch (const std::exception &e) {
      for (int peer : peers)
        store.set(info_key(prefix, me, peer), std::string(kFailedInfo) + e.what());
      throw;
    }
    for (std::size_t i = 0; i < peers.size(); ++i)
      eps_[i].connect(
          peer_info(store, info_key(prefix, peers[i], me), ctx_.peer_timeout(), peers[i]));
    if (!receiver_) {
      std::vector<std::uint8_t> pattern(s_.size_bytes);
      fill_pattern(pattern.data(), pattern.size(), s_.size_bytes);
      for (int q = 0; q < s_.qps; ++q)
        eps_[0].write_slot(q, pattern.data(), pattern.size());
    }
  }

  PortCounters read_counters() override {
    return read_port_counters(s_.sysfs_root, eps_.at(0).device_name(), s_.port);
  }

  FlowFigures measure(RunContext &ctx) override {
    FlowStreamer &st = streamer();
    const std::uint64_t unit =
        static_cast<std::uint64_t>(s_.qps) * static_cast<std::uint64_t>(moderation());
    st.run(unit); // the queues are full before the first timed call
    // About 8 MiB per timed call, whole rounds of every QP's moderation.
    const std::uint64_t wanted =
        std::max<std::uint64_t>(1, (std::uint64_t{8} << 20) / s_.size_bytes);
    const std::uint64_t per_call = (wanted + unit - 1) / unit * unit;
    const std::vector<std::uint64_t> before = st.completed_per_qp();
    std::uint64_t target = st.completed();
    HostTimer timer;
    const Measurement m = ctx.measure(timer, [&] {
      target += per_call;
      if (st.completed() < target)
        st.run(target - st.completed());
    });
    FlowFigures f = flow_over(st, before, s_.size_bytes);
    const std::uint64_t bytes_per_call = per_call * s_.size_bytes;
    f.gbits_per_s = 8.0 * static_cast<double>(bytes_per_call) / m.time_s.median / 1e9;
    f.measurement = m.bandwidth_metrics(bytes_per_call);
    f.measurement["messages_per_call"] = per_call;
    return f;
  }

  void stream_until(const std::function<bool()> &stop) override {
    FlowStreamer &st = streamer();
    const std::uint64_t chunk = std::max<std::uint64_t>(
        static_cast<std::uint64_t>(s_.qps) * static_cast<std::uint64_t>(moderation()),
        (std::uint64_t{4} << 20) / s_.size_bytes);
    while (!stop())
      st.run(chunk);
    st.drain();
  }

  DataCheck check_received() override {
    DataCheck checked;
    std::vector<std::uint8_t> received(s_.size_bytes);
    for (std::size_t i = 0; i < eps_.size(); ++i)
      for (int q = 0; q < s_.qps; ++q) {
        eps_[i].read_slot(q, received.data(), received.size());
        checked.check(received.data(), received.size(), s_.size_bytes,
                      fmt::format("receiver buffer of flow {} QP {}", i, q), nullptr);
      }
    return checked;
  }

  nlohmann::json device() const override {
    return {{device::kNic, eps_.empty() ? device_ : eps_[0].device_name()},
            {device::kPort, s_.port}};
  }
  nlohmann::json derived_params() const override {
    if (eps_.empty())
      return nlohmann::json::object();
    return addressing_of(eps_[0]);
  }
  nlohmann::json flow_entropy() const override {
    return receiver_ || eps_.empty() ? nlohmann::json() : entropy_of(eps_[0]);
  }
  double line_rate_gbits_per_s() const override {
    return eps_.empty()
               ? 0
               : read_port_rate_gbits(s_.sysfs_root, eps_[0].device_name(), s_.port).value_or(0);
  }

private:
  int moderation() const { return moderation_for(s_.size_bytes, s_.tx_depth); }
  FlowStreamer &streamer() {
    if (!streamer_)
      streamer_.emplace(eps_.at(0), s_.size_bytes, moderation(), ctx_.peer_timeout_s());
    return *streamer_;
  }
  const RunContext &ctx_;
  FabricLoadSpec s_;
  std::string device_;
  bool receiver_ = false;
  std::vector<Endpoint> eps_;
  std::optional<FlowStreamer> streamer_;
};

// The probe: QP 0 of its own endpoint between ranks 0 and 1, a WRITE ping-pong (traffic.h); the
// load: each loader's own endpoint of `qps` QPs to rank 1, WRITE streams.
class VerbsProbeSide final : public ProbeSide {
public:
  VerbsProbeSide(const RunContext &ctx, const FabricLoadSpec &spec)
      : ctx_(ctx), s_(spec), device_(device_for_rank(spec.devices, ctx.rank())) {}

  void connect(Store &store, const std::string &prefix, const std::vector<int> &loaders) override {
    const int me = ctx_.rank();
    loader_ = std::find(loaders.begin(), loaders.end(), me) != loaders.end();
    // Load peers: a loader meets rank 1, rank 1 meets every loader.
    std::vector<int> load_peers;
    if (me == 1)
      load_peers = loaders;
    else if (loader_)
      load_peers = {1};
    try {
      if (me <= 1) {
        EndpointConfig c = stream_config(s_, device_, 1, flow_labels(s_, 0, 0, 1));
        c.send_depth = 16;
        c.recv_depth = 16;
        c.slot_bytes = PingPongSlots::slot_bytes(s_.probe_size_bytes);
        c.max_inline_bytes = 64;
        probe_.emplace(c, ctx_.topology().get());
        store.set(fmt::format("{}probe/{}", prefix, me), probe_->local_info().serialize());
      }
      for (int peer : load_peers) {
        const int sender = me == 1 ? peer : me;
        // The probe holds flow label (0, 0); rank 0's load starts at its QP 1.
        load_.emplace_back(stream_config(s_, device_, s_.qps,
                                         flow_labels(s_, sender, sender == 0 ? 1 : 0, s_.qps)),
                           ctx_.topology().get());
        store.set(info_key(prefix, me, peer), load_.back().local_info().serialize());
      }
    } catch (const std::exception &e) {
      if (me <= 1)
        store.set(fmt::format("{}probe/{}", prefix, me), std::string(kFailedInfo) + e.what());
      for (int peer : load_peers)
        store.set(info_key(prefix, me, peer), std::string(kFailedInfo) + e.what());
      throw;
    }
    if (me <= 1) {
      const int other = 1 - me;
      probe_->connect(
          peer_info(store, fmt::format("{}probe/{}", prefix, other), ctx_.peer_timeout(), other));
      const TrafficShape shape = probe_shape();
      if (me == 0)
        pingpong_.emplace(*probe_, shape);
      else
        fill_pattern(probe_->slot(0) + PingPongSlots::out_offset(s_.probe_size_bytes),
                     s_.probe_size_bytes, s_.probe_size_bytes);
    }
    for (std::size_t i = 0; i < load_peers.size(); ++i)
      load_[i].connect(peer_info(store, info_key(prefix, load_peers[i], me), ctx_.peer_timeout(),
                                 load_peers[i]));
    if (loader_) {
      std::vector<std::uint8_t> pattern(s_.size_bytes);
      fill_pattern(pattern.data(), pattern.size(), s_.size_bytes);
      for (int q = 0; q < s_.qps; ++q)
        load_[0].write_slot(q, pattern.data(), pattern.size());
    }
  }

  PortCounters read_counters() override {
    const Endpoint &ep = probe_ ? *probe_ : load_.at(0);
    return read_port_counters(s_.sysfs_root, ep.device_name(), s_.port);
  }

  std::vector<double> measure_probe(RunContext &ctx) override {
    PerCallTimer timer;
    ctx.measure(timer, [&] { pingpong_->round_trip(); });
    std::vector<double> one_way = timer.calls_s();
    for (double &v : one_way)
      v *= 0.5; // perftest's convention for WRITE latency
    return one_way;
  }

  void stop_probe() override {
    if (probe_ && !stopped_) {
      stopped_ = true;
      probe_->write_peer_control(1, ctx_.peer_timeout_s());
    }
  }

  void serve_probe() override {
    const std::atomic<bool> never{false};
    serve(*probe_, probe_shape(), Pattern::latency, never,
          serve_deadline_s(2 * ctx_.peer_timeout_s(), 8 * ctx_.measure_spec().time_budget_s, 0));
  }

  FlowFigures stream_until(const std::function<bool()> &stop) override {
    FlowStreamer st(load_.at(0), s_.size_bytes, moderation_for(s_.size_bytes, s_.tx_depth),
                    ctx_.peer_timeout_s());
    const std::vector<std::uint64_t> before = st.completed_per_qp();
    const std::uint64_t chunk = std::max<std::uint64_t>(static_cast<std::uint64_t>(s_.qps),
                                                        (std::uint64_t{4} << 20) / s_.size_bytes);
    const auto began = Clock::now();
    // At least one chunk (a message on every QP) before looking at `stop`: a loader descheduled
    // until the probe is done must still have written what rank 1's data check reads.
    do
      st.run(chunk);
    while (!stop());
    const double elapsed_s = std::chrono::duration<double>(Clock::now() - began).count();
    st.drain();
    FlowFigures f = flow_over(st, before, s_.size_bytes);
    double bytes = 0;
    for (double b : f.bytes_per_qp)
      bytes += b;
    f.gbits_per_s = elapsed_s > 0 ? 8.0 * bytes / elapsed_s / 1e9 : 0;
    return f;
  }

  DataCheck check_received() override {
    DataCheck checked;
    if (ctx_.rank() == 0 && s_.probe_size_bytes > 1) // the last byte carries the round's tag
      checked.check(probe_->slot(0), s_.probe_size_bytes - 1, s_.probe_size_bytes,
                    "probe ping buffer", nullptr);
    if (ctx_.rank() == 1) {
      std::vector<std::uint8_t> received(s_.size_bytes);
      for (std::size_t i = 0; i < load_.size(); ++i)
        for (int q = 0; q < s_.qps; ++q) {
          load_[i].read_slot(q, received.data(), received.size());
          checked.check(received.data(), received.size(), s_.size_bytes,
                        fmt::format("load buffer of loader {} QP {}", i, q), nullptr);
        }
    }
    return checked;
  }

  nlohmann::json device() const override {
    const Endpoint *ep = probe_ ? &*probe_ : load_.empty() ? nullptr : &load_[0];
    return {{device::kNic, ep ? ep->device_name() : device_}, {device::kPort, s_.port}};
  }
  nlohmann::json derived_params() const override {
    const Endpoint *ep = probe_ ? &*probe_ : load_.empty() ? nullptr : &load_[0];
    if (!ep)
      return nlohmann::json::object();
    return addressing_of(*ep);
  }
  nlohmann::json flow_entropy() const override {
    return loader_ ? entropy_of(load_.at(0)) : nlohmann::json();
  }

private:
  TrafficShape probe_shape() const {
    TrafficShape t;
    t.verb = Verb::write;
    t.message_bytes = s_.probe_size_bytes;
    t.use_inline = s_.probe_size_bytes <= static_cast<std::size_t>(probe_->max_inline());
    t.progress_timeout_s = ctx_.peer_timeout_s();
    return t;
  }
  const RunContext &ctx_;
  FabricLoadSpec s_;
  std::string device_;
  bool loader_ = false;
  bool stopped_ = false;
  std::optional<Endpoint> probe_;
  std::vector<Endpoint> load_;
  std::optional<PingPong> pingpong_;
};

} // namespace

std::unique_ptr<IncastSide> make_verbs_incast_side(const RunContext &ctx,
                                                   const FabricLoadSpec &spec) {
  return std::make_unique<VerbsIncastSide>(ctx, spec);
}

std::unique_ptr<ProbeSide> make_verbs_probe_side(const RunContext &ctx,
                                                 const FabricLoadSpec &spec) {
  return std::make_unique<VerbsProbeSide>(ctx, spec);
}

} // namespace railgauge::rdma
