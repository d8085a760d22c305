#include "rdma/verbs_point.h"

#include <algorithm>
#include <atomic>
#include <exception>
#include <optional>
#include <thread>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "harness/byte_rates.h"
#include "harness/cuda/device.h"
#include "harness/device_fields.h"
#include "harness/error.h"
#include "harness/inventory/port_counters.h"
#include "harness/store/memory_store.h"
#include "harness/waiver.h"
#include "rdma/latency_summary.h"
#include "rdma/pair_failure.h"
#include "rdma/peer_result.h"
#include "rdma/per_call_timer.h"
#include "rdma/stopping_rule.h"
#include "rdma/verbs/endpoint.h"
#include "rdma/verbs/traffic.h"
#include "records/rdma_point_fields.h"
#include "records/rdma_record.h"

namespace railgauge::rdma {
namespace {

// Soft-RoCE under emulation is about 100x slower than hardware: generous, but bounded.
Milliseconds peer_timeout(const VerbsPointSpec &s) {
  return Milliseconds(static_cast<long long>(s.peer_timeout_s * 1e3));
}
constexpr double kDrainTimeout_s = 60;

bool is_latency(const VerbsPointSpec &s) { return s.pattern == Pattern::latency; }
bool bidirectional(const VerbsPointSpec &s) {
  return s.pattern == Pattern::bandwidth_bidirectional;
}

EndpointConfig endpoint_config(const VerbsPointSpec &s) {
  EndpointConfig c;
  c.device = s.device;
  c.port = s.port;
  c.gid_index = s.gid_index;
  c.traffic_class = s.traffic_class;
  c.service_level = s.service_level;
  c.qps = is_latency(s) ? 1 : s.qps;
  c.send_depth = is_latency(s) ? 16 : s.tx_depth;
  // Bandwidth: perftest's ib_send_bw receive depth (512, DEF_RX_SEND) or more, so that a
  // receiver that falls behind for a moment costs no RNR NAK (on Soft-RoCE one waits a tick).
  c.recv_depth = is_latency(s) ? 16 : std::max(4 * s.tx_depth, 512);
  c.slot_bytes =
      is_latency(s) ? PingPongSlots::slot_bytes(s.size_bytes) : (s.size_bytes + 63) / 64 * 64;
  c.max_inline_bytes = s.verb == Verb::read ? 0 : s.inline_bytes;
  c.sysfs_root = s.sysfs_root;
  c.gpu = s.gpu;
  return c;
}

// Messages per measured call of the bandwidth patterns: about 1 MiB, at most 4096 messages.
std::uint64_t wanted_per_call(const VerbsPointSpec &s) {
  return std::clamp<std::uint64_t>((std::uint64_t{1} << 20) / s.size_bytes, 1, 4096);
}

TrafficShape traffic_shape(const VerbsPointSpec &s, const Endpoint &ep) {
  TrafficShape t;
  t.verb = s.verb;
  t.message_bytes = s.size_bytes;
  t.post_list = is_latency(s) ? 1 : s.post_list;
  t.cq_moderation = is_latency(s) ? 1 : s.cq_moderation;
  t.progress_timeout_s = s.peer_timeout_s;
  t.also_receives = bidirectional(s);
  // Large messages: fewer per call than one moderation unit would make calls alternate between
  // no completion and a burst; moderation matters only for small messages, so lower it to the
  // largest divisor of the queue depth that fits.
  const auto per_qp = std::max<std::uint64_t>(1, wanted_per_call(s) / ep.config().qps);
  while (!is_latency(s) && static_cast<std::uint64_t>(t.cq_moderation) > per_qp &&
         t.cq_moderation > 1) {
    --t.cq_moderation;
    while (ep.config().send_depth % t.cq_moderation != 0)
      --t.cq_moderation;
  }
  t.use_inline = s.verb != Verb::read && s.size_bytes <= static_cast<std::size_t>(ep.max_inline());
  return t;
}

// What each side's memory must hold before the first message: the pattern where this side's
// data is the source, receives where it receives.
void prepare(Endpoint &ep, const VerbsPointSpec &s, bool server) {
  const int qps = ep.config().qps;
  if (is_latency(s)) {
    if (server) {
      fill_pattern(ep.slot(0) + PingPongSlots::out_offset(s.size_bytes), s.size_bytes,
                   s.size_bytes);
      if (s.verb == Verb::send)
        ep.post_recvs(0, ep.config().recv_depth);
    }
    return; // the client's PingPong prepares itself
  }
  const bool source = bidirectional(s) || (server == (s.verb == Verb::read));
  std::vector<std::uint8_t> pattern(source ? s.size_bytes : 0);
  fill_pattern(pattern.data(), pattern.size(), s.size_bytes);
  for (int q = 0; q < qps; ++q) {
    if (source)
      ep.write_slot(q, pattern.data(), pattern.size());
    if (s.verb == Verb::send && (server || bidirectional(s)))
      ep.post_recvs(q, ep.config().recv_depth);
  }
}

// The data this side received, checked against the pattern.
DataCheck check_received(const Endpoint &ep, const VerbsPointSpec &s, bool server) {
  DataCheck checked;
  const std::string side = server ? "server" : "client";
  if (is_latency(s)) {
    // The last byte carries the iteration tag, the rest is the peer's pattern.
    if (server && s.verb == Verb::read)
      return checked;
    if (s.size_bytes > 1)
      checked.check(ep.slot(0), s.size_bytes - 1, s.size_bytes, side + " ping buffer",
                    s.before_data_check);
    return checked;
  }
  const bool receiver = bidirectional(s) || (server != (s.verb == Verb::read));
  if (!receiver)
    return checked;
  // A copy wherever the slots lie: GPU memory is read back over PCIe.
  std::vector<std::uint8_t> received(s.size_bytes);
  for (int q = 0; q < ep.config().qps; ++q) {
    ep.read_slot(q, received.data(), received.size());
    checked.check(received.data(), received.size(), s.size_bytes,
                  fmt::format("{} buffer of QP {}", side, q), s.before_data_check);
  }
  return checked;
}

// The server's result. Bidirectional SEND: the server's last sends need receives on this side,
// and with infinite RNR retry a send without one waits for ever, so a thread keeps giving
// receives back while this one waits; a client that only waited would hang the server's drain.
std::string server_result(Endpoint &ep, const VerbsPointSpec &s, Store &store,
                          const std::string &key) {
  if (!(bidirectional(s) && s.verb == Verb::send))
    return store.get(key, peer_timeout(s));
  std::atomic<bool> done{false};
  std::exception_ptr failure;
  std::thread receiver([&] {
    try {
      while (!done.load(std::memory_order_relaxed))
        if (repost_completed_receives(ep) == 0)
          std::this_thread::sleep_for(std::chrono::microseconds(50));
    } catch (...) {
      failure = std::current_exception();
    }
  });
  std::string result;
  try {
    result = store.get(key, peer_timeout(s));
  } catch (...) {
    done = true;
    receiver.join();
    throw;
  }
  done = true;
  receiver.join();
  if (failure)
    std::rethrow_exception(failure);
  return result;
}

PortCounters counters_of(const Endpoint &ep) {
  return read_port_counters(ep.config().sysfs_root, ep.device_name(), ep.config().port);
}

// The peer's connection data, or its failure: a side that fails before it sends its data sends
// "error: <why>" in its place, so that the other side does not wait out its timeout.
constexpr std::string_view kFailedInfo = "error: ";
EndpointInfo peer_info(Store &store, const std::string &key, const VerbsPointSpec &s,
                       const char *peer) {
  const std::string text = store.get(key, peer_timeout(s));
  if (text.starts_with(kFailedInfo))
    throw BackendError(
        fmt::format("the {} side failed: {}", peer, text.substr(kFailedInfo.size())));
  return EndpointInfo::parse(text);
}

void wait_client_ready(Store &store, const std::string &prefix, const VerbsPointSpec &s) {
  if (store.get(prefix + "client_ready", peer_timeout(s)) != "ok")
    throw BackendError("the client side failed before its first message");
}

// The passive side. Never throws: errors go to the store, where the client reports them.
void run_server(const VerbsPointSpec &s, Store &store, const std::string &prefix,
                hwloc_topology_t topology, const std::atomic<bool> &abort,
                nlohmann::json *result_out) {
  nlohmann::json result;
  bool info_sent = false, ready_sent = false;
  try {
    Endpoint ep(endpoint_config(s), topology);
    store.set(prefix + "server_info", ep.local_info().serialize());
    info_sent = true;
    ep.connect(peer_info(store, prefix + "client_info", s, "client"));
    prepare(ep, s, true);
    store.set(prefix + "server_ready", "ok");
    ready_sent = true;
    // Bidirectional: this side's traffic reads or writes the client's slots, which must hold
    // their pattern first. A READ into slots that are also read from would otherwise copy the
    // client's half-written slot here, and the client's later READs would copy it back (seen on
    // Soft-RoCE: memcpy stores the first 32 bytes of 1 MiB last).
    if (bidirectional(s))
      wait_client_ready(store, prefix, s);
    // This side's port too: a bad cable or switch port may show on either end only.
    const PortCounters before = counters_of(ep);
    const ServeResult served =
        serve(ep, traffic_shape(s, ep), s.pattern, abort, s.serve_deadline_s);
    const PortCounters after = counters_of(ep);
    result = check_received(ep, s, true).to_json();
    result["messages"] = served.messages;
    result["active_s"] = served.active_s;
    result["device"] = ep.device_name();
    result[record::kPortCounterDeltas] = counter_deltas(before, after);
  } catch (const std::exception &e) {
    if (!info_sent)
      store.set(prefix + "server_info", std::string(kFailedInfo) + e.what());
    if (!ready_sent)
      store.set(prefix + "server_ready", std::string("error: ") + e.what());
    result = {{"error", e.what()}};
  }
  if (result_out)
    *result_out = result;
  store.set(prefix + "server_result", result.dump());
}

// The measurement under the point's stopping rule: the run's --measure spec, or exactly
// enough calls of `messages_per_call` for `iterations` messages (rdma/stopping_rule.h):
// bandwidth one sample per call, latency every round trip back to back in one batch.
Measurement measure_under_rule(const RunContext &ctx, const VerbsPointSpec &s,
                               std::uint64_t messages_per_call, Timer &timer, const Operation &op) {
  if (s.iterations == 0)
    return ctx.measure(timer, op);
  RunContext counted = ctx; // the same sampler and topology, another spec
  const std::int64_t calls = calls_for_messages(s.iterations, messages_per_call);
  counted.set_measure_spec(is_latency(s) ? back_to_back_spec(ctx.measure_spec(), calls)
                                         : fixed_calls_spec(ctx.measure_spec(), calls));
  return counted.measure(timer, op);
}

// A latency point: round trips under the stopping rule, as perftest reports them.
nlohmann::json measure_latency(const RunContext &ctx, const VerbsPointSpec &s, Endpoint &ep,
                               const TrafficShape &shape) {
  const PortCounters before = counters_of(ep);
  PingPong pingpong(ep, shape);
  PerCallTimer timer;
  const Measurement m = measure_under_rule(ctx, s, 1, timer, [&] { pingpong.round_trip(); });
  const PortCounters after = counters_of(ep);
  // perftest's convention: WRITE and SEND latency is half the round trip; READ is the
  // round trip (the request and the data are one operation).
  const double scale = s.verb == Verb::read ? 1.0 : 0.5;
  std::vector<double> latency = timer.calls_s();
  // Iterations: the batch's N round trips, as perftest's -n (nothing else is stamped then).
  if (s.iterations > 0 && latency.size() > s.iterations)
    latency.erase(latency.begin(), latency.end() - static_cast<std::ptrdiff_t>(s.iterations));
  for (double &v : latency)
    v *= scale;
  nlohmann::json metrics = m.to_json();
  summarize_latency(latency).write(metrics, record::kLatency);
  metrics[record::kLatencyDefinition] =
      s.verb == Verb::read ? "round trip" : "round trip / 2 (as perftest)";
  metrics[record::kRoundTripsMeasured] = timer.measured();
  metrics[record::kRoundTripsKept] = latency.size();
  metrics[record::kPortCounterDeltas] = counter_deltas(before, after);
  return metrics;
}

// A bandwidth point: messages streamed under the stopping rule.
nlohmann::json measure_bandwidth(const RunContext &ctx, const VerbsPointSpec &s, Endpoint &ep,
                                 const TrafficShape &shape) {
  const PortCounters before = counters_of(ep);
  Streamer streamer(ep, shape);
  const std::uint64_t unit = static_cast<std::uint64_t>(ep.config().qps) * shape.cq_moderation;
  const std::uint64_t per_call = (wanted_per_call(s) + unit - 1) / unit * unit;
  // A cumulative target, so that overshoot in one call is credited to the next and the
  // calls average exactly per_call messages.
  std::uint64_t target = 0;
  HostTimer timer;
  const Measurement m = measure_under_rule(ctx, s, per_call, timer, [&] {
    target += per_call;
    if (streamer.completed() < target)
      streamer.run(target - streamer.completed());
  });
  streamer.drain(std::min(kDrainTimeout_s, s.peer_timeout_s));
  const PortCounters after = counters_of(ep);
  const std::uint64_t bytes_per_call = per_call * s.size_bytes;
  nlohmann::json metrics = m.to_json();
  record::BandwidthFields::of(bytes_per_call, per_call, m.time_s).write(metrics);
  metrics[record::kMessagesMeasured] =
      per_call * std::uint64_t{m.samples_s.size()} * static_cast<std::uint64_t>(m.batch);
  metrics[record::kMessagesCompleted] = streamer.completed();
  metrics[record::kPortCounterDeltas] = counter_deltas(before, after);
  return metrics;
}

Outcome run_client(RunContext &ctx, const VerbsPointSpec &s, Store &store,
                   const std::string &prefix) {
  std::optional<Endpoint> opened;
  try {
    opened.emplace(endpoint_config(s), ctx.topology().get());
  } catch (const std::exception &e) {
    store.set(prefix + "client_info", std::string(kFailedInfo) + e.what());
    throw;
  }
  Endpoint &ep = *opened;
  store.set(prefix + "client_info", ep.local_info().serialize());
  ep.connect(peer_info(store, prefix + "server_info", s, "server"));
  const TrafficShape shape = traffic_shape(s, ep);
  check_shape(shape, ep.config().send_depth);
  prepare(ep, s, false);
  store.set(prefix + "client_ready", "ok");
  const std::string ready = store.get(prefix + "server_ready", peer_timeout(s));
  if (ready != "ok")
    throw BackendError("the server side failed: " + ready);

  Outcome out;
  try {
    out.metrics =
        is_latency(s) ? measure_latency(ctx, s, ep, shape) : measure_bandwidth(ctx, s, ep, shape);
  } catch (...) {
    try {
      ep.write_peer_control(1, 5);
    } catch (...) {
    }
    throw;
  }
  ep.write_peer_control(1, std::min(kDrainTimeout_s, s.peer_timeout_s));
  const auto server = PeerResult::parse(server_result(ep, s, store, prefix + "server_result"));
  if (server.error)
    throw BackendError("the server side failed: " + *server.error);
  DataCheck checked = check_received(ep, s, false);
  checked.add(server.checked);
  if (bidirectional(s)) {
    if (!server.active_s)
      throw BackendError("the server's result has no active_s, which a bidirectional point needs");
    const double active_s = *server.active_s;
    const double peer_gbits =
        active_s > 0 ? gbits_per_s_of(static_cast<double>(server.messages * s.size_bytes), active_s)
                     : 0;
    // The peer's direction is timed by the peer from its first to its last completion
    // (perftest sums both sides' results the same way).
    auto bandwidth = record::BandwidthFields::read(out.metrics).value();
    bandwidth.add_peer(peer_gbits);
    bandwidth.write(out.metrics);
  }
  out.metrics[record::kServerMessages] = server.messages;
  if (server.port_counter_deltas)
    out.metrics[record::kPeerPortCounterDeltas] = *server.port_counter_deltas;
  out.device = {{device::kNic, ep.device_name()}, {device::kPort, s.port}};
  if (ep.numa_node() >= 0) // -1: the device does not say (Soft-RoCE, one-node machines)
    out.device[device::kNuma] = ep.numa_node();
  out.derived_params = {
      {record::kGidIndexUsed, ep.gid().index},
      {record::kGidType, to_string(ep.gid().type)},
      {record::kGidChoice, ep.gid().why},
      {record::kLinkLayer, ep.ethernet() ? "Ethernet" : "InfiniBand"},
      {record::kMtuBytes, ep.mtu_bytes()},
      {record::kInlineUsed, shape.use_inline},
      {record::kMaxInlineGrantedBytes, ep.max_inline()},
      {record::kQpsUsed, ep.config().qps},
      {record::kCqModerationUsed, shape.cq_moderation},
      {record::kStoppingRule, s.iterations > 0 ? kStopByIterations : kStopByMeasurementCore},
      {record::kMemoryRegistration, ep.registration()}};
  if (s.gpu >= 0)
    out.device[device::kGpu] = s.gpu;
  if (ctx.verify())
    checked.conclude(out);
  return out;
}

} // namespace

std::optional<std::string> verbs_waive_reason(const RunContext &ctx, const VerbsPointSpec &spec) {
  std::string why;
  if (list_verbs_devices(why).empty())
    return why;
  if (spec.gpu >= 0) {
    if (spec.pattern == Pattern::latency)
      return std::string("the latency tests poll the arriving message from the CPU, which GPU "
                         "memory does not allow; GPUDirect RDMA is measured by the bandwidth "
                         "tests (memory=gpu:N)");
    if (const auto no_cuda = gpu::cuda_unavailable_reason())
      return "memory=gpu:" + std::to_string(spec.gpu) + " needs a GPU: " + *no_cuda;
    if (spec.gpu >= gpu::cuda_device_count())
      return fmt::format("memory=gpu:{}: this process sees {} CUDA device(s)", spec.gpu,
                         gpu::cuda_device_count());
  }
  if (spec.mode == "ranks") {
    if (ctx.world_size() < 2 || ctx.store() == nullptr)
      return not_applicable(
          fmt::format("mode=ranks needs 2 ranks and a store (this run has {} rank{}); "
                      "use mode=loopback or launch with mpirun/srun -n 2",
                      ctx.world_size(), ctx.world_size() == 1 ? "" : "s"));
    if (ctx.rank() > 1)
      return not_applicable(
          fmt::format("rank {} is not part of the pair (ranks 0 and 1 are)", ctx.rank()));
  }
  return std::nullopt;
}

std::vector<std::string> verbs_device_names(std::string &why_none) {
  return list_verbs_devices(why_none);
}

Outcome run_verbs_side(RunContext &ctx, const VerbsPointSpec &spec, Store &store,
                       const std::string &prefix, bool client) {
  // The other rank answers within the run's peer timeout (--store-timeout) or is reported.
  // The server waits for the client's measurement: at most about twice its time budget.
  VerbsPointSpec s = spec;
  s.peer_timeout_s = ctx.peer_timeout_s();
  s.serve_deadline_s =
      serve_deadline_s(s.peer_timeout_s, ctx.measure_spec().time_budget_s, s.iterations);
  if (client)
    return run_client(ctx, s, store, prefix);
  const std::atomic<bool> never{false};
  nlohmann::json result;
  run_server(s, store, prefix, ctx.topology().get(), never, &result);
  if (result.contains("error"))
    throw BackendError(result["error"].get<std::string>());
  Outcome out;
  out.metrics = {{record::kRole, record::kRoleServer},
                 {record::kMessagesServed, result["messages"]},
                 {record::kPortCounterDeltas, result[record::kPortCounterDeltas]}};
  out.device = {{device::kNic, result["device"]}, {device::kPort, s.port}};
  if (ctx.verify())
    DataCheck::from_json(result).conclude(out);
  return out;
}

Outcome run_verbs_point(RunContext &ctx, const VerbsPointSpec &spec) {
  if (const auto why = verbs_waive_reason(ctx, spec))
    return Outcome::waived(*why);
  const std::string prefix = fmt::format("rdma/{}/", spec.point_id);
  if (spec.mode == "ranks") {
    try {
      return run_verbs_side(ctx, spec, *ctx.store(), prefix, ctx.rank() == 0);
    } catch (const InputError &) {
      throw;
    } catch (const std::exception &e) {
      throw_naming_peer(ctx, e);
    }
  }
  // Loopback: the server on a second thread, both ends on the same device.
  // Its deadline covers an iterations point however long it is.
  VerbsPointSpec served = spec;
  served.serve_deadline_s = std::max(
      spec.serve_deadline_s,
      serve_deadline_s(spec.peer_timeout_s, ctx.measure_spec().time_budget_s, spec.iterations));
  MemoryStore store;
  std::atomic<bool> abort{false};
  std::thread server(
      [&] { run_server(served, store, prefix, ctx.topology().get(), abort, nullptr); });
  try {
    Outcome out = run_client(ctx, spec, store, prefix);
    server.join();
    return out;
  } catch (...) {
    // Unblock the server wherever it waits: on the client's info (it fails to parse this), on
    // its readiness, or in its serving loop.
    store.set(prefix + "client_info", std::string(kFailedInfo) + "the client failed");
    store.set(prefix + "client_ready", "client failed");
    abort = true;
    server.join();
    throw;
  }
}

} // namespace railgauge::rdma
