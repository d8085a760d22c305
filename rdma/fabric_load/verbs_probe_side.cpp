// The verbs side of the fabric-load probe rounds (flow_rounds.h): the probe's WRITE ping-pong
// beside the load's WRITE streams (verbs_streams.h).
#include <infiniband/verbs.h>

#include <atomic>
#include <chrono>
#include <optional>

#include <fmt/format.h>

#include "harness/byte_rates.h"
#include "harness/device_fields.h"
#include "harness/error.h"
#include "rdma/fabric_load/fabric_figures.h"
#include "rdma/fabric_load/fabric_load_spec.h"
#include "rdma/fabric_load/verbs_streams.h"
#include "rdma/per_call_timer.h"
#include "rdma/stopping_rule.h"
#include "rdma/verbs/endpoint.h"
#include "rdma/verbs/traffic.h"
#include "rdma/verbs/verbs_error.h"
#include "records/rdma_record.h"

namespace railgauge::rdma {
namespace {

using Clock = std::chrono::steady_clock;

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
    f.gbits_per_s = elapsed_s > 0 ? gbits_per_s_of(bytes, elapsed_s) : 0;
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

std::unique_ptr<ProbeSide> make_verbs_probe_side(const RunContext &ctx,
                                                 const FabricLoadSpec &spec) {
  return std::make_unique<VerbsProbeSide>(ctx, spec);
}

} // namespace railgauge::rdma
