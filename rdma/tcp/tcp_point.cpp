#include "rdma/tcp/tcp_point.h"

#include <arpa/inet.h>
#include <ifaddrs.h>
#include <net/if.h>

#include <algorithm>
#include <memory>
#include <thread>
#include <vector>

#include <fmt/format.h>

#include "harness/cpus_given.h"
#include "harness/device_fields.h"
#include "harness/error.h"
#include "harness/inventory/tcp_counters.h"
#include "harness/pinned_workers.h"
#include "harness/store/memory_store.h"
#include "harness/waiver.h"
#include "rdma/data_pattern.h"
#include "rdma/latency_summary.h"
#include "rdma/pair_failure.h"
#include "rdma/peer_result.h"
#include "rdma/per_call_timer.h"
#include "rdma/tcp/tcp_hello.h"
#include "rdma/tcp/tcp_socket.h"
#include "records/rdma_point_fields.h"
#include "records/rdma_record.h"

namespace railgauge::rdma {
namespace {

// Messages per measured call of the streaming patterns: about 1 MiB, at most 4096 messages.
std::uint64_t messages_per_call(std::size_t size) {
  return std::clamp<std::uint64_t>((std::uint64_t{1} << 20) / size, 1, 4096);
}

Milliseconds store_timeout(const TcpPointSpec &s) {
  return Milliseconds(static_cast<long long>(s.timeout_s * 1000));
}

// Binds the calling thread to `pu` for as long as it lives; unbound (and says so) where the
// system refuses, which leaves the point measured as the scheduler places it.
std::optional<PinnedWorkers::CallerBinding> bind_end(const Topology &topology, unsigned pu) {
  try {
    return std::optional<PinnedWorkers::CallerBinding>(std::in_place, topology.get(), pu);
  } catch (const BackendError &) {
    return std::nullopt;
  }
}

} // namespace

std::optional<std::pair<unsigned, unsigned>> loopback_end_pus(const Topology &topology) {
  if (!topology.is_this_machine())
    return std::nullopt;
  // Only the CPUs this process was given (taskset, numactl, a launcher's task affinity): hwloc
  // would bind outside them.
  std::unique_ptr<hwloc_bitmap_s, void (*)(hwloc_bitmap_t)> given(hwloc_bitmap_alloc(),
                                                                  &hwloc_bitmap_free);
  if (hwloc_get_cpubind(topology.get(), given.get(), HWLOC_CPUBIND_PROCESS) != 0)
    return std::nullopt;
  for (const auto &node : topology.numa_nodes()) {
    std::vector<unsigned> pus;
    for (const unsigned pu : node.core_pus)
      if (hwloc_bitmap_isset(given.get(), pu))
        pus.push_back(pu);
    if (pus.size() >= 2)
      return std::pair(pus[0], pus[1]);
  }
  return std::nullopt;
}

std::string resolve_bind_address(const std::string &name) {
  in6_addr probe{};
  if (inet_pton(AF_INET, name.c_str(), &probe) == 1 ||
      inet_pton(AF_INET6, name.c_str(), &probe) == 1)
    return name;
  ifaddrs *list = nullptr;
  if (getifaddrs(&list) != 0)
    throw BackendError("getifaddrs failed");
  std::unique_ptr<ifaddrs, void (*)(ifaddrs *)> guard(list, freeifaddrs);
  std::string v6, seen;
  for (ifaddrs *i = list; i; i = i->ifa_next) {
    if (!i->ifa_addr || !i->ifa_name)
      continue;
    if (seen.find(std::string(i->ifa_name) + " ") == std::string::npos)
      seen += std::string(i->ifa_name) + " ";
    if (name != i->ifa_name)
      continue;
    char text[INET6_ADDRSTRLEN] = {};
    if (i->ifa_addr->sa_family == AF_INET) {
      inet_ntop(AF_INET, &reinterpret_cast<sockaddr_in *>(i->ifa_addr)->sin_addr, text,
                sizeof text);
      return text;
    }
    if (i->ifa_addr->sa_family == AF_INET6 && v6.empty()) {
      const auto *a6 = reinterpret_cast<sockaddr_in6 *>(i->ifa_addr);
      if (!IN6_IS_ADDR_LINKLOCAL(&a6->sin6_addr)) {
        inet_ntop(AF_INET6, &a6->sin6_addr, text, sizeof text);
        v6 = text;
      }
    }
  }
  if (!v6.empty())
    return v6;
  throw InputError(fmt::format("'{}' is neither an address nor an interface with one", name),
                   "axis bind_address", fmt::format("use an address or one of: {}", seen));
}

std::optional<std::string> spin_refusal(const Topology &topology, const TcpPointSpec &spec) {
  if (spec.wait != SocketWait::spin)
    return std::nullopt;
  const bool loopback = spec.mode == "loopback";
  const int cpus = cpus_given();
  // Ranks whose CPU masks overlap share this process's CPUs; a host whose cores are unknown is
  // taken as shared, since a refusal with its reason beats ends that starve each other. Only
  // ranks 0 and 1 spin in mode=ranks.
  int sharing = 1;
  if (const auto ranks = launcher_ranks_on_this_host();
      ranks && *ranks > 1 && rank_cpus(*ranks, cpus, host_cores(topology)) != RankCpus::own)
    sharing = loopback ? *ranks : std::min(*ranks, 2);
  const int spinning = (loopback ? 2 : 1) * sharing;
  if (spinning <= cpus)
    return std::nullopt;
  return fmt::format("wait=spin would keep {} threads spinning on this process's {} CPU(s) ({} "
                     "per rank{}): each would spin through the time slice its peer needs to "
                     "answer; use wait=sleep, or give each rank {} CPUs of its own",
                     spinning, cpus, loopback ? "two ends" : "one end",
                     sharing > 1 ? fmt::format(", {} ranks sharing them", sharing) : "",
                     loopback ? 2 : 1);
}

std::optional<std::string> tcp_waive_reason(const RunContext &ctx, const TcpPointSpec &spec) {
  if (spec.size_bytes < 1 || spec.size_bytes > kTcpMaxMessageBytes)
    return fmt::format("message size {} B is outside 1 B..64 MiB", spec.size_bytes);
  if (const auto why = spin_refusal(ctx.topology(), spec))
    return not_applicable(*why);
  if (spec.mode == "ranks") {
    if (ctx.world_size() < 2 || ctx.store() == nullptr)
      return not_applicable(
          fmt::format("mode=ranks needs 2 ranks and a store (this run has {}); use "
                      "mode=loopback or launch with mpirun/srun -n 2",
                      ctx.world_size()));
    if (ctx.rank() > 1)
      return not_applicable(
          fmt::format("rank {} is not part of the pair (ranks 0 and 1 are)", ctx.rank()));
  }
  return std::nullopt;
}

nlohmann::json tcp_server(const TcpPointSpec &s, Store &store, const std::string &prefix,
                          const std::atomic<bool> &abort) {
  nlohmann::json result;
  bool announced = false;
  std::vector<std::string> refused;
  try {
    const std::string address = resolve_bind_address(s.bind_address);
    Socket listener = listen_on(address);
    const std::string token = new_pair_token();
    store.set(prefix + "server_token", token); // before the endpoint: a client reads both
    store.set(prefix + "server_endpoint", listening_endpoint(listener, address));
    announced = true;
    Socket conn = accept_tcp_client(listener, token, s.timeout_s, abort, refused);
    std::vector<std::uint8_t> in, out;
    std::uint64_t messages = 0;
    const std::size_t size = s.size_bytes;
    if (s.pattern == Pattern::latency) {
      in.resize(size);
      while (!abort && recv_all(conn, in.data(), size, s.timeout_s, s.wait)) {
        send_all(conn, in.data(), size, s.timeout_s, s.wait); // echo
        ++messages;
      }
    } else if (s.pattern == Pattern::bandwidth) {
      const std::uint64_t per_call = messages_per_call(size);
      in.resize(size);
      const std::uint8_t ack = 1;
      bool open = true;
      while (open && !abort) {
        for (std::uint64_t m = 0; m < per_call; ++m)
          if (!recv_all(conn, in.data(), size, s.timeout_s, s.wait)) {
            if (m != 0)
              throw BackendError("client closed in the middle of a call");
            open = false;
            break;
          }
        if (open) {
          send_all(conn, &ack, 1, s.timeout_s, s.wait);
          messages += per_call;
        }
      }
    } else {
      const std::size_t bytes = messages_per_call(size) * size;
      in.resize(bytes);
      out.resize(bytes);
      for (std::size_t off = 0; off < bytes; off += size)
        fill_pattern(out.data() + off, size, size);
      while (!abort) {
        // Receive the client's call and send ours back at once; a clean close ends the loop.
        if (!recv_all(conn, in.data(), 1, s.timeout_s, s.wait))
          break;
        exchange(conn, out.data(), bytes, in.data() + 1, bytes - 1, s.timeout_s, s.wait);
        messages += bytes / size;
      }
    }
    PeerResult done;
    if (messages > 0)
      done.checked.check(in.data(), size, size, "server's last received message",
                         s.before_data_check);
    done.messages = messages;
    done.refused_connections = refused.size();
    result = done.to_json();
  } catch (const std::exception &e) {
    PeerResult failed;
    failed.error = e.what();
    result = failed.to_json();
    if (!announced) // the client waits for an endpoint: give it the reason instead
      store.set(prefix + "server_endpoint", std::string("error: ") + e.what());
  }
  // An error text may quote the OS or a peer: invalid UTF-8 is replaced, never thrown.
  store.set(prefix + "server_result",
            result.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace));
  return result;
}

Outcome tcp_client(RunContext &ctx, const TcpPointSpec &s, Store &store,
                   const std::string &prefix) {
  const std::string endpoint = store.get(prefix + "server_endpoint", store_timeout(s));
  if (endpoint.rfind("error: ", 0) == 0)
    throw BackendError("the TCP server side failed: " + endpoint.substr(7));
  const std::string token = store.get(prefix + "server_token", store_timeout(s));
  Socket conn = connect_to(endpoint, s.timeout_s);
  send_tcp_hello(conn, token, ctx.rank(), s.timeout_s);
  const std::string address = resolve_bind_address(s.bind_address);
  const std::string netdev = netdev_of_address(address);
  const TcpCounters counters_before = read_tcp_counters("/proc", "/sys", netdev);
  const std::size_t size = s.size_bytes;
  Outcome out;
  DataCheck checked;
  {
    std::vector<std::uint8_t> msg(size), in(size);
    fill_pattern(msg.data(), size, size);
    if (s.pattern == Pattern::latency) {
      PerCallTimer timer;
      const Measurement m = ctx.measure(timer, [&] {
        send_all(conn, msg.data(), size, s.timeout_s, s.wait);
        if (!recv_all(conn, in.data(), size, s.timeout_s, s.wait))
          throw BackendError("TCP server closed the connection");
      });
      std::vector<double> one_way = timer.calls_s();
      for (double &v : one_way)
        v *= 0.5;
      out.metrics = m.to_json();
      summarize_latency(one_way).write(out.metrics, record::kLatency);
      out.metrics[record::kLatencyDefinition] = "round trip / 2";
      out.metrics[record::kRoundTripsMeasured] = timer.measured();
      checked.check(in.data(), size, size, "client's echo", s.before_data_check);
    } else {
      const std::uint64_t per_call = messages_per_call(size);
      const std::size_t bytes = per_call * size;
      std::vector<std::uint8_t> call(bytes), back(bytes);
      for (std::size_t off = 0; off < bytes; off += size)
        fill_pattern(call.data() + off, size, size);
      HostTimer timer;
      std::uint8_t ack = 0;
      const bool bidir = s.pattern == Pattern::bandwidth_bidirectional;
      const Measurement m = ctx.measure(timer, [&] {
        if (bidir) {
          exchange(conn, call.data(), bytes, back.data(), bytes, s.timeout_s, s.wait);
        } else {
          for (std::uint64_t k = 0; k < per_call; ++k)
            send_all(conn, call.data() + k * size, size, s.timeout_s, s.wait);
          if (!recv_all(conn, &ack, 1, s.timeout_s, s.wait))
            throw BackendError("TCP server closed the connection");
        }
      });
      // Bidirectional: each call moves `bytes` each way; the figure is the sum (perftest -b).
      const std::uint64_t moved = bidir ? 2 * bytes : bytes;
      out.metrics = m.to_json();
      record::BandwidthFields::of(moved, per_call, m.time_s).write(out.metrics);
      if (bidir)
        checked.check(back.data(), size, size, "client's received stream", s.before_data_check);
    }
  }
  conn.shutdown_write();
  // Drain what the server still sends (bidirectional) until it closes.
  std::vector<std::uint8_t> sink(65536);
  while (recv_all(conn, sink.data(), 1, s.timeout_s)) {
  }
  // The whole host's TCP counters and the device's: retransmissions here mean loss on the path.
  out.metrics[record::kTcpCounterDeltas] =
      counter_deltas(counters_before, read_tcp_counters("/proc", "/sys", netdev));
  const auto server = PeerResult::parse(store.get(prefix + "server_result", store_timeout(s)));
  if (server.error)
    throw BackendError("the TCP server side failed: " + *server.error);
  checked.add(server.checked);
  out.metrics[record::kServerMessages] = server.messages;
  // Connections the server refused before this client's (tcp_hello.h): not 0 means something
  // else on the network reached the benchmark's port.
  out.metrics[record::kServerRefusedConnections] = server.refused_connections;
  out.device = {{device::kInterfaceAddress, address}, {device::kNetdev, netdev}};
  if (ctx.verify())
    checked.conclude(out);
  return out;
}

Outcome run_tcp_point(RunContext &ctx, const TcpPointSpec &spec) {
  if (const auto why = tcp_waive_reason(ctx, spec))
    return Outcome::waived(*why);
  const std::string prefix = fmt::format("tcp/{}/", spec.point_id);
  if (spec.mode == "ranks") {
    // The other rank answers within the run's peer timeout (--store-timeout) or is reported.
    TcpPointSpec s = spec;
    s.timeout_s = ctx.peer_timeout_s();
    try {
      if (ctx.rank() == 0)
        return tcp_client(ctx, s, *ctx.store(), prefix);
      const std::atomic<bool> never{false};
      const auto result = tcp_server(s, *ctx.store(), prefix, never);
      if (result.contains("error"))
        throw BackendError(result["error"].get<std::string>());
      Outcome out;
      out.metrics = {{record::kRole, record::kRoleServer},
                     {record::kMessagesServed, result["messages"]}};
      if (ctx.verify())
        DataCheck::from_json(result).conclude(out);
      return out;
    } catch (const InputError &) {
      throw;
    } catch (const std::exception &e) {
      throw_naming_peer(ctx, e);
    }
  }
  const TcpPointSpec &s = spec;
  // The user's address is checked here first, so a wrong one is an InputError naming the axis.
  listen_on(resolve_bind_address(s.bind_address));
  MemoryStore store;
  std::atomic<bool> abort{false};
  const auto ends = loopback_end_pus(ctx.topology());
  std::atomic<bool> server_bound{false};
  std::thread server([&] {
    const auto bound = ends ? bind_end(ctx.topology(), ends->second) : std::nullopt;
    server_bound = bound.has_value();
    tcp_server(s, store, prefix, abort);
  });
  try {
    const auto client_bound = ends ? bind_end(ctx.topology(), ends->first) : std::nullopt;
    Outcome out = tcp_client(ctx, s, store, prefix);
    server.join();
    if (client_bound && server_bound) {
      out.derived_params[record::kClientPu] = ends->first;
      out.derived_params[record::kServerPu] = ends->second;
    }
    return out;
  } catch (...) {
    // Unblock the server wherever it waits: a connection that closes at once ends accept and
    // the serving loop alike.
    abort = true;
    try {
      Socket poke = connect_to(store.get(prefix + "server_endpoint", Milliseconds(1000)), 5);
    } catch (...) {
    }
    server.join();
    throw;
  }
}

} // namespace railgauge::rdma
