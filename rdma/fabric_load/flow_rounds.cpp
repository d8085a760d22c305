#include "rdma/fabric_load/flow_rounds.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <exception>
#include <functional>
#include <thread>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "harness/error.h"
#include "harness/waiver.h"
#include "rdma/fabric_load/fabric_figures.h"
#include "rdma/latency_summary.h"
#include "records/fabric_load_fields.h"
#include "records/rdma_record.h"

namespace railgauge::rdma {
namespace {

// Fields of the store messages the ranks exchange, never a record's own: a rank's result (its
// flow's figures beside its record::kPortCounterDeltas and record::kEndDevice) and the figures.
constexpr const char *kWireFlow = "flow";
constexpr const char *kWireBytesPerQp = "bytes_per_qp";
constexpr const char *kWireMeasurement = "measurement";

} // namespace

std::vector<double> FlowFigures::gbits_per_s_per_qp() const {
  double total = 0;
  for (double b : bytes_per_qp)
    total += b;
  std::vector<double> out;
  for (double b : bytes_per_qp)
    out.push_back(total > 0 ? gbits_per_s * b / total : 0.0);
  return out;
}

nlohmann::json FlowFigures::to_json() const {
  return {{record::kFlowGbitsPerS, gbits_per_s},
          {kWireBytesPerQp, bytes_per_qp},
          {kWireMeasurement, measurement}};
}

FlowFigures FlowFigures::from_json(const nlohmann::json &j) {
  try {
    FlowFigures f;
    f.gbits_per_s = j.at(record::kFlowGbitsPerS).get<double>();
    f.bytes_per_qp = j.at(kWireBytesPerQp).get<std::vector<double>>();
    f.measurement = j.value(kWireMeasurement, nlohmann::json::object());
    return f;
  } catch (const nlohmann::json::exception &e) {
    throw BackendError(fmt::format("a flow's figures are malformed: {}", e.what()));
  }
}

bool store_has_all(Store &store, const std::vector<std::string> &keys) {
  try {
    store.wait(keys, Milliseconds(0));
    return true;
  } catch (const StoreTimeout &) {
    return false;
  }
}

namespace {

using Clock = std::chrono::steady_clock;

// A load thread that is always stopped and joined, by stop() or when the round leaves early.
class LoadThread {
public:
  LoadThread() = default;
  LoadThread(const LoadThread &) = delete;
  LoadThread &operator=(const LoadThread &) = delete;
  ~LoadThread() { stop(); }
  void start(std::function<void()> body) { thread_ = std::thread(std::move(body)); }
  bool stopping() const { return stop_.load(std::memory_order_relaxed); }
  void stop() {
    stop_ = true;
    if (thread_.joinable())
      thread_.join();
  }

private:
  std::atomic<bool> stop_{false};
  std::thread thread_;
};

std::vector<std::string> keys_of(const std::string &prefix, const std::vector<int> &ranks) {
  std::vector<std::string> keys;
  for (int r : ranks)
    keys.push_back(prefix + std::to_string(r));
  return keys;
}

// Waits for `<prefix><rank>` of every rank; a timeout names the ranks that never set theirs.
void wait_ranks(Store &store, const std::string &prefix, const std::vector<int> &ranks,
                Milliseconds timeout, const std::string &what) {
  try {
    store.wait(keys_of(prefix, ranks), timeout);
  } catch (const StoreTimeout &e) {
    throw BackendError(fmt::format("ranks {} did not {} within {} s",
                                   fmt::join(ranks_missing(e.missing_keys(), prefix), ", "), what,
                                   static_cast<double>(timeout.count()) / 1e3));
  }
}

void group_barrier(Store &store, const std::string &name, int rank, const std::vector<int> &ranks,
                   Milliseconds timeout) {
  store.set(name + std::to_string(rank), "1");
  wait_ranks(store, name, ranks, timeout, "arrive at '" + name + "'");
}

// How long a rank waits for the others' measurements: its peer timeout plus several time
// budgets (every sender measures for about one, and a core that does not settle takes longer).
Milliseconds round_timeout(const RunContext &ctx) {
  return ctx.peer_timeout() +
         Milliseconds(static_cast<long long>(8e3 * ctx.measure_spec().time_budget_s) + 10'000);
}

double seconds_since(Clock::time_point t) {
  return std::chrono::duration<double>(Clock::now() - t).count();
}

// A rank's own counters across a phase, with the congestion figures read out of them.
void put_counters(Outcome &out, const nlohmann::json &deltas, double phase_s) {
  out.metrics[record::kPortCounterDeltas] = deltas;
  const CongestionFigures congestion = congestion_figures(deltas);
  out.metrics[record::kCongestion] = to_json(congestion);
  if (const auto pause = pfc_pause_fraction(congestion, phase_s))
    out.metrics[record::kPfcPauseFraction] = *pause;
  out.metrics[record::kPhaseS] = phase_s;
}

// A probe round's ranks: 0 measures, 1 answers, the others load.
const char *role_in_probe(int rank) {
  return rank == 0   ? record::kRoleProbe
         : rank == 1 ? record::kRoleProbeReceiver
                     : record::kRoleLoader;
}

record::FabricEndFields end_of(int rank, const char *role, const nlohmann::json &device,
                               const nlohmann::json &deltas) {
  return {rank, role, device, to_json(congestion_figures(deltas))};
}

DataCheck verdict_from(Store &store, const std::string &key, Milliseconds timeout) {
  const std::string text = store.get(key, timeout);
  try {
    return DataCheck::from_json(nlohmann::json::parse(text));
  } catch (const nlohmann::json::exception &e) {
    throw BackendError(fmt::format("the receiver's data check is malformed: {}", e.what()));
  }
}

bool contains(const std::vector<int> &ranks, int r) {
  return std::find(ranks.begin(), ranks.end(), r) != ranks.end();
}

// A sender's own flow: its bandwidth, and its queue pairs' spread where it has several.
void put_flow_metrics(Outcome &out, const FlowFigures &flow) {
  out.metrics = flow.measurement;
  out.metrics[record::kBandwidthGbitsPerS] = flow.gbits_per_s;
  if (flow.bytes_per_qp.size() > 1) {
    const auto per_qp = flow.gbits_per_s_per_qp();
    flow_spread(per_qp).write(out.metrics, record::kPerQpGbitsPerS);
    out.metrics[record::kJainFairnessIndex] = jain_fairness_index(per_qp);
  }
}

// What sender `s` posted for the receiver: its flow, counter deltas and device.
nlohmann::json sender_result(Store &store, const std::string &prefix, int s, Milliseconds timeout) {
  try {
    return nlohmann::json::parse(store.get(prefix + "result/" + std::to_string(s), timeout));
  } catch (const nlohmann::json::exception &e) {
    throw BackendError(fmt::format("rank {}'s flow figures are malformed: {}", s, e.what()));
  }
}

} // namespace

Outcome run_incast_round(RunContext &ctx, const RoundSpec &spec, IncastSide &side) {
  const int me = ctx.rank();
  const bool receiver = me == spec.receiver;
  if (!receiver && !contains(spec.senders, me))
    return Outcome::waived(not_applicable(
        fmt::format("rank {} is neither the receiver (rank {}) nor one of its senders ({})", me,
                    spec.receiver, fmt::join(spec.senders, ", "))));
  Store &store = *ctx.store();
  const std::string &p = spec.prefix;
  std::vector<int> everyone = spec.senders;
  everyone.push_back(spec.receiver);
  const Milliseconds long_wait = round_timeout(ctx);

  side.connect(store, p, spec.receiver, spec.senders);
  group_barrier(store, p + "connected/", me, everyone, ctx.peer_timeout());
  const auto began = Clock::now();
  const PortCounters before = side.read_counters();
  Outcome out;
  out.derived_params = side.derived_params();
  out.derived_params[record::kRole] = receiver ? record::kRoleReceiver : record::kRoleSender;
  out.derived_params[record::kSenders] = spec.senders.size();
  out.device = side.device();

  if (!receiver) {
    const FlowFigures flow = side.measure(ctx);
    store.set(p + "measured/" + std::to_string(me), "ok");
    // Unmeasured streaming until every sender has measured: the last flow measured still
    // shares the receiver with all the others.
    const auto measured = keys_of(p + "measured/", spec.senders);
    const auto deadline = Clock::now() + long_wait;
    side.stream_until([&] {
      if (store_has_all(store, measured))
        return true;
      if (Clock::now() > deadline)
        wait_ranks(store, p + "measured/", spec.senders, Milliseconds(0), "finish measuring");
      return false;
    });
    const double phase_s = seconds_since(began);
    const nlohmann::json deltas = counter_deltas(before, side.read_counters());
    store.set(p + "result/" + std::to_string(me),
              nlohmann::json{{kWireFlow, flow.to_json()},
                             {record::kPortCounterDeltas, deltas},
                             {record::kEndDevice, side.device()}}
                  .dump());
    put_flow_metrics(out, flow);
    put_counters(out, deltas, phase_s);
    if (const nlohmann::json entropy = side.flow_entropy(); !entropy.is_null())
      out.metrics[record::kFlowEntropy] = entropy;
    // The receiver checks the data; its verdict is this flow's too.
    const DataCheck checked = verdict_from(store, p + "checked", long_wait);
    if (ctx.verify())
      checked.conclude(out);
    return out;
  }

  wait_ranks(store, p + "result/", spec.senders, long_wait, "send their flow's figures");
  const double phase_s = seconds_since(began);
  const nlohmann::json deltas = counter_deltas(before, side.read_counters());
  const DataCheck checked = side.check_received();
  store.set(p + "checked", checked.to_json().dump());

  std::vector<double> flows;
  std::vector<record::FabricEndFields> ends;
  record::IncastFigures incast;
  incast.flows.emplace();
  for (int s : spec.senders) {
    const nlohmann::json result = sender_result(store, p, s, long_wait);
    const FlowFigures flow = FlowFigures::from_json(result.at(kWireFlow));
    flows.push_back(flow.gbits_per_s);
    incast.flows->push_back({s, flow.gbits_per_s, result.at(record::kEndDevice)});
    ends.push_back(end_of(s, record::kRoleSender, result.at(record::kEndDevice),
                          result.at(record::kPortCounterDeltas)));
  }
  ends.push_back(end_of(me, record::kRoleReceiver, side.device(), deltas));
  const auto spread = flow_spread(flows);
  const double sum = spread.sum.value_or(0); // flow_spread sets every figure
  incast.aggregate_gbits_per_s = sum;
  incast.jain_fairness_index = spread.jain.value_or(0);
  if (const double line = side.line_rate_gbits_per_s(); line > 0) {
    incast.line_rate_gbits_per_s = line;
    incast.aggregate_over_line_rate = sum / line;
  }
  incast.write(out.metrics);
  spread.write(out.metrics, record::kPerFlowGbitsPerS);
  record::write_ends(out.metrics, ends);
  put_counters(out, deltas, phase_s);
  if (ctx.verify())
    checked.conclude(out);
  return out;
}

namespace {

// What a rank of the probe round saw while it measured: rank 0's latencies idle and under load,
// a loader's own flow, and every rank's port counters over the loaded phase.
struct ProbePhase {
  std::vector<double> idle, loaded;
  nlohmann::json deltas;
  double phase_s = 0;
  FlowFigures my_flow;
};

// Rank 0 measures idle, the loaders stream, rank 0 measures again under their load; the others
// wait for it to finish. The caller stops the probe and its server, on success or failure.
ProbePhase measure_probe_phases(RunContext &ctx, const ProbeRoundSpec &spec, ProbeSide &side,
                                bool loader, Milliseconds long_wait) {
  const int me = ctx.rank();
  Store &store = *ctx.store();
  const std::string &p = spec.prefix;
  ProbePhase phase;
  if (me == 0) {
    phase.idle = side.measure_probe(ctx);
    store.set(p + "idle_done", "ok");
  }
  store.get(p + "idle_done", long_wait);
  const auto began = Clock::now();
  const PortCounters before = side.read_counters();
  // The loaders stream until rank 0 has measured under their load. The load thread never
  // touches the store: a process's store client serves one request at a time, so a main
  // thread blocked in a get would hold the thread's requests for the whole wait (no load, and
  // rank 0 never hears it started). The main thread says "streaming" and watches for
  // "loaded_done" in short polls; the thread stops on a flag.
  std::exception_ptr load_failure;
  LoadThread load;
  if (loader) {
    store.set(p + "streaming/" + std::to_string(me), "ok");
    load.start([&] {
      try {
        phase.my_flow = side.stream_until([&] { return load.stopping(); });
      } catch (...) {
        load_failure = std::current_exception();
      }
    });
  }
  if (me == 0) {
    try {
      wait_ranks(store, p + "streaming/", spec.loaders, long_wait, "start their load");
      phase.loaded = side.measure_probe(ctx);
    } catch (...) {
      store.set(p + "loaded_done", "failed");
      throw;
    }
    store.set(p + "loaded_done", "ok");
  } else {
    const auto deadline = Clock::now() + long_wait;
    while (!store_has_all(store, {p + "loaded_done"})) {
      if (Clock::now() > deadline)
        store.get(p + "loaded_done", Milliseconds(0)); // throws, naming the key
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
  }
  load.stop();
  if (load_failure)
    std::rethrow_exception(load_failure);
  phase.phase_s = seconds_since(began);
  phase.deltas = counter_deltas(before, side.read_counters());
  return phase;
}

// Rank 0's part of the round's record: its latencies idle and loaded, the loaders' flows and every
// end's counters.
void put_probe_summary(RunContext &ctx, const ProbeRoundSpec &spec, ProbeSide &side,
                       const std::vector<int> &everyone, const ProbePhase &phase,
                       Milliseconds long_wait, DataCheck &checked, Outcome &out) {
  Store &store = *ctx.store();
  const std::string &p = spec.prefix;
  checked.add(side.check_received());
  wait_ranks(store, p + "result/", everyone, long_wait, "send their counters");
  std::vector<record::FabricEndFields> ends;
  std::vector<double> load_flows;
  for (int r : everyone) {
    const auto result =
        nlohmann::json::parse(store.get(p + "result/" + std::to_string(r), long_wait));
    ends.push_back(end_of(r, role_in_probe(r), result.at(record::kEndDevice),
                          result.at(record::kPortCounterDeltas)));
    if (contains(spec.loaders, r))
      load_flows.push_back(FlowFigures::from_json(result.at(kWireFlow)).gbits_per_s);
  }
  const record::LatencyFields idle = summarize_latency(phase.idle);
  const record::LatencyFields loaded = summarize_latency(phase.loaded);
  loaded.write(out.metrics, record::kLatency);
  idle.write(out.metrics, record::kLatencyIdle);
  out.metrics[record::kLoadedOverIdle] = latency_ratios(loaded, idle);
  out.metrics[record::kLatencyDefinition] = "round trip / 2 (as perftest)";
  if (!load_flows.empty() &&
      std::any_of(load_flows.begin(), load_flows.end(), [](double g) { return g > 0; }))
    flow_spread(load_flows).write(out.metrics, record::kLoadGbitsPerS);
  record::write_ends(out.metrics, ends);
}

} // namespace

Outcome run_probe_round(RunContext &ctx, const ProbeRoundSpec &spec, ProbeSide &side) {
  const int me = ctx.rank();
  const bool loader = contains(spec.loaders, me);
  if (me > 1 && !loader)
    return Outcome::waived(not_applicable(
        fmt::format("rank {} is neither an end of the probe (ranks 0 and 1) nor a loader ({})", me,
                    fmt::join(spec.loaders, ", "))));
  Store &store = *ctx.store();
  const std::string &p = spec.prefix;
  std::vector<int> everyone = {0, 1};
  for (int l : spec.loaders)
    if (l > 1)
      everyone.push_back(l);
  const Milliseconds long_wait = round_timeout(ctx);

  side.connect(store, p, spec.loaders);
  group_barrier(store, p + "connected/", me, everyone, ctx.peer_timeout());

  // Rank 1 answers pings from here until rank 0 says stop.
  std::exception_ptr serve_failure;
  std::thread server;
  if (me == 1)
    server = std::thread([&] {
      try {
        side.serve_probe();
      } catch (...) {
        serve_failure = std::current_exception();
      }
    });
  const auto join_server = [&] {
    if (server.joinable())
      server.join();
    if (serve_failure)
      std::rethrow_exception(serve_failure);
  };

  Outcome out;
  out.derived_params = side.derived_params();
  out.derived_params[record::kRole] = role_in_probe(me);
  out.derived_params[record::kLoaders] = spec.loaders.size();
  out.device = side.device();
  ProbePhase phase;
  try {
    phase = measure_probe_phases(ctx, spec, side, loader, long_wait);
    if (me == 0)
      side.stop_probe();
    join_server();
  } catch (...) {
    if (me == 0) {
      try {
        side.stop_probe();
      } catch (...) {
      }
    }
    if (server.joinable())
      server.join();
    throw;
  }
  store.set(p + "result/" + std::to_string(me),
            nlohmann::json{{kWireFlow, loader ? phase.my_flow.to_json() : nlohmann::json()},
                           {record::kPortCounterDeltas, phase.deltas},
                           {record::kEndDevice, side.device()}}
                .dump());
  if (me == 1) {
    wait_ranks(store, p + "result/", spec.loaders, long_wait, "send their load's figures");
    store.set(p + "checked", side.check_received().to_json().dump());
  }
  put_counters(out, phase.deltas, phase.phase_s);
  if (loader)
    out.metrics[record::kBandwidthGbitsPerS] = phase.my_flow.gbits_per_s;
  if (const nlohmann::json entropy = side.flow_entropy(); !entropy.is_null())
    out.metrics[record::kFlowEntropy] = entropy;
  DataCheck checked = verdict_from(store, p + "checked", long_wait);
  if (me == 0) {
    put_probe_summary(ctx, spec, side, everyone, phase, long_wait, checked, out);
  }
  if (ctx.verify())
    checked.conclude(out);
  return out;
}

} // namespace railgauge::rdma
