#include "harness/launch.h"

#include <arpa/inet.h>
#include <charconv>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <netdb.h>
#include <random>

#include <fmt/format.h>

#include "harness/error.h"
#include "harness/node_name.h"
#include "harness/run_fields.h"
#include "harness/store/memory_store.h"
#include "harness/store/mpi_bootstrap.h"
#include "harness/store/tcp_store.h"
#include "harness/watchdog.h"
#include "railgauge/config.h"

namespace railgauge {
namespace {

namespace fs = std::filesystem;

constexpr const char *kRunIdKey = "railgauge/run-id";
constexpr const char *kStoppedEarlyKey = "railgauge/stopped-early";
constexpr const char *kRefusedKey = "railgauge/refused";
constexpr const char *kLostRanksKey = "railgauge/lost-ranks";
// Each rank's host, set when it joins: run.json names the host of a lost rank by it.
std::string host_key(int rank) { return fmt::format("railgauge/host/{}", rank); }
constexpr const char *kTokenFix =
    "export the same RAILGAUGE_RUN_TOKEN (any string up to 256 bytes) to every rank, or run under "
    "Slurm (the job and step id are the default token), or let MPI set the store up (--store mpi)";

struct Found {
  std::string name;
  int value = 0;
};

// The first of `names` that is set, as a whole number; InputError when it is not one.
std::optional<Found> first_number(const Environment &env, std::initializer_list<const char *> names,
                                  std::vector<Found> *all_found = nullptr) {
  std::optional<Found> first;
  for (const char *name : names) {
    const auto text = env(name);
    if (!text)
      continue;
    int value = -1;
    const auto *end = text->data() + text->size();
    const auto [ptr, ec] = std::from_chars(text->data(), end, value);
    if (text->empty() || ec != std::errc() || ptr != end || value < 0)
      throw InputError(fmt::format("{}='{}' is not a whole number", name, *text), name,
                       "start railgauge with mpirun or srun, or unset the variable");
    if (!first)
      first = Found{name, value};
    if (all_found)
      all_found->push_back({name, value});
  }
  return first;
}

void check_agree(const std::vector<Found> &found, const char *what) {
  for (const auto &f : found)
    if (f.value != found.front().value)
      throw InputError(fmt::format("the launcher's variables disagree on the {}: {}={} but {}={}",
                                   what, found.front().name, found.front().value, f.name, f.value),
                       f.name,
                       "start railgauge directly from one launcher (mpirun or srun), not from a "
                       "process that another launcher started");
}

std::string random_token() {
  std::random_device device; // /dev/urandom
  return fmt::format("{:08x}{:08x}{:08x}{:08x}", device(), device(), device(), device());
}

// The first non-loopback address `host` resolves to: where rank 0 listens when the ranks span
// several hosts and nobody named an address.
std::optional<std::string> routable_address(const std::string &host) {
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  addrinfo *found = nullptr;
  if (getaddrinfo(host.c_str(), nullptr, &hints, &found) != 0)
    return std::nullopt;
  std::optional<std::string> address;
  for (const addrinfo *a = found; a && !address; a = a->ai_next) {
    char text[INET6_ADDRSTRLEN] = {};
    if (a->ai_family == AF_INET) {
      const auto *in = reinterpret_cast<const sockaddr_in *>(a->ai_addr);
      if ((ntohl(in->sin_addr.s_addr) >> 24) != 127)
        address = inet_ntop(AF_INET, &in->sin_addr, text, sizeof text);
    } else if (a->ai_family == AF_INET6) {
      const auto *in6 = reinterpret_cast<const sockaddr_in6 *>(a->ai_addr);
      if (!IN6_IS_ADDR_LOOPBACK(&in6->sin6_addr) && !IN6_IS_ADDR_LINKLOCAL(&in6->sin6_addr))
        address = inet_ntop(AF_INET6, &in6->sin6_addr, text, sizeof text);
    }
  }
  freeaddrinfo(found);
  return address;
}

// The run's token, which tells its ranks from another run's at the same store address.
std::string run_token(const Environment &env) {
  if (const auto t = env("RAILGAUGE_RUN_TOKEN"); t && !t->empty())
    return *t;
  if (const auto job = env("SLURM_JOB_ID"))
    return fmt::format("slurm-{}.{}", *job, env("SLURM_STEP_ID").value_or("0"));
  throw InputError("no run token: a store needs one to tell this run's ranks from others",
                   "RAILGAUGE_RUN_TOKEN", kTokenFix);
}

// The store address and token in rank 0's "ok HOST PORT TOKEN".
TcpEndpoint endpoint_of_root_message(const std::string &message, std::string &token) {
  char host_text[256] = {}, token_text[300] = {};
  unsigned port = 0;
  if (std::sscanf(message.c_str(), "ok %255s %u %299s", host_text, &port, token_text) != 3 ||
      port == 0 || port > 65535)
    throw BackendError(fmt::format("rank 0 sent a store address that is not one: '{}'", message));
  token = token_text;
  return {host_text, static_cast<std::uint16_t>(port)};
}

} // namespace

// Destroyed in reverse: the stores hang up before MPI is finalised.
struct World::Connection {
  std::unique_ptr<MpiRuntime> mpi;
  MemoryStore memory;
  std::unique_ptr<TcpStoreServer> server;
  std::unique_ptr<TcpStoreClient> client;
};

Environment process_environment() {
  return [](const std::string &name) -> std::optional<std::string> {
    if (const char *v = std::getenv(name.c_str()))
      return std::string(v);
    return std::nullopt;
  };
}

LaunchInfo launch_info_from(const Environment &env) {
  LaunchInfo info;
  std::vector<Found> ranks, sizes;
  const auto rank = first_number(env, {"OMPI_COMM_WORLD_RANK", "PMIX_RANK", "PMI_RANK"}, &ranks);
  const auto size = first_number(env, {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE"}, &sizes);
  check_agree(ranks, "rank");
  check_agree(sizes, "world size");
  std::optional<Found> local;
  if (rank) {
    info.mpi_launcher = true;
    info.source = rank->name.starts_with("OMPI")   ? "OMPI_COMM_WORLD_*"
                  : rank->name.starts_with("PMIX") ? "PMIX_*"
                                                   : "PMI_*";
    // srun --mpi=pmix sets PMIX_RANK but leaves the size to SLURM_NTASKS.
    const auto slurm_size = size ? size : first_number(env, {"SLURM_NTASKS"});
    if (!slurm_size)
      throw InputError(fmt::format("{} is set but no world size is", rank->name), rank->name,
                       "start railgauge with mpirun or srun, which set both");
    info.rank = rank->value;
    info.world_size = slurm_size->value;
    local = first_number(env, {"OMPI_COMM_WORLD_LOCAL_RANK", "MPI_LOCALRANKID", "SLURM_LOCALID"});
  } else if (size) {
    throw InputError(fmt::format("{} is set but no rank is", size->name), size->name,
                     "start railgauge with mpirun or srun, which set both");
  } else if (const auto slurm_rank = first_number(env, {"SLURM_PROCID"})) {
    const auto slurm_size = first_number(env, {"SLURM_NTASKS"});
    if (!slurm_size)
      throw InputError("SLURM_PROCID is set but SLURM_NTASKS is not", "SLURM_NTASKS",
                       "start railgauge with srun, which sets both");
    info.source = "SLURM_*";
    info.rank = slurm_rank->value;
    info.world_size = slurm_size->value;
    local = first_number(env, {"SLURM_LOCALID"});
  }
  if (info.world_size < 1 || info.rank >= info.world_size)
    throw InputError(fmt::format("rank {} of a world of {} ranks (from {})", info.rank,
                                 info.world_size, info.source),
                     info.source,
                     "a rank must be in 0..world size-1: check the launcher's variables");
  info.local_rank = local ? local->value : 0;
  return info;
}

std::string rank_directory_name(int rank) { return fmt::format("rank-{:05d}", rank); }

World::World(const LaunchInfo &launch, StoreSettings settings, const Environment &env,
             std::string host)
    : launch_(launch), settings_(std::move(settings)), host_(std::move(host)),
      connection_(std::make_unique<Connection>()) {
  store_ = &connection_->memory;
  if (launch_.world_size == 1)
    return; // nobody to meet
  std::string where = "--store";
  if (!settings_.url) {
    settings_.url = env("RAILGAUGE_STORE");
    where = "RAILGAUGE_STORE";
  }
  if (!settings_.url || settings_.url->empty()) {
    if (!(RAILGAUGE_HAS_MPI && launch_.mpi_launcher))
      throw InputError(
          fmt::format("{} ranks (from {}) but no store to meet in", launch_.world_size,
                      launch_.source),
          "--store",
          "give every rank --store tcp://RANK0_HOST:PORT (or export RAILGAUGE_STORE), or start "
          "the ranks with mpirun in a build with MPI");
    settings_.url = "mpi";
  }
  const std::string &url = *settings_.url;
  // A rank that is gone is waited for no longer than the run's timeout anywhere: not in the
  // reconnects after rank 0's store vanished, nor in rank 0's wait for clients to hang up.
  const Milliseconds grace = std::min(Milliseconds(10'000), settings_.timeout);
  const TcpStoreClientOptions client_options{settings_.timeout, grace, grace};
  TcpStoreServerOptions server_options;
  server_options.shutdown_grace = grace;
  server_options.world_size = launch_.world_size;
  server_options.lost_ranks_key = kLostRanksKey;
  auto &c = *connection_;

  if (url == "mpi" || url.starts_with("mpi://")) {
    meet_through_mpi(url, client_options, server_options);
  } else {
    TcpEndpoint endpoint = parse_tcp_url(url, where);
    if (endpoint.port == 0)
      throw InputError(fmt::format("'{}': the other ranks cannot find port 0", url), where,
                       "give a port (e.g. tcp://HOST:29500), or --store mpi under mpirun");
    const std::string token = run_token(env);
    if (launch_.rank == 0)
      c.server = std::make_unique<TcpStoreServer>(endpoint, token, server_options);
    else
      c.client = std::make_unique<TcpStoreClient>(endpoint, token, launch_.rank, client_options);
    store_text_ = fmt::format("tcp://{}", endpoint.to_string());
  }
  store_ = c.server ? static_cast<Store *>(c.server.get()) : c.client.get();
  store_->set(host_key(launch_.rank), host_);
}

// --store mpi: MPI gives each rank its rank and carries rank 0's store address to the others.
void World::meet_through_mpi(const std::string &url, const TcpStoreClientOptions &client_options,
                             const TcpStoreServerOptions &server_options) {
  auto &c = *connection_;
  // MPI's start and the address broadcast wait for every rank with no deadline of their own:
  // a rank that never starts would hold this one forever. The store's timeout bounds them.
  const double limit_s = settings_.timeout.count() / 1000.0;
  const int rank = launch_.rank;
  Watchdog mpi_start([rank](const std::string &what, double waited_s) {
    std::fprintf(stderr,
                 "railgauge: error: --store mpi: rank %d: %s did not finish within %.0f s: a "
                 "rank that never started, or mpirun's wire-up hung\n  fix: start every rank "
                 "(mpirun's host list, railgauge on each node), or raise --store-timeout\n",
                 rank, what.c_str(), waited_s);
    std::fflush(stderr);
    std::_Exit(code(ExitStatus::internal));
  });
  mpi_start.arm("MPI's start (MPI_Init_thread and the store address sent from rank 0)", limit_s);
  c.mpi = start_mpi();
  if (c.mpi->rank() != launch_.rank || c.mpi->size() != launch_.world_size)
    throw BackendError(fmt::format("MPI says rank {} of {}, the launcher's variables ({}) say "
                                   "rank {} of {}",
                                   c.mpi->rank(), c.mpi->size(), launch_.source, launch_.rank,
                                   launch_.world_size));
  std::string listen_host = url.size() > 6 ? url.substr(6) : "";
  // The machine's own name, not the node's: simulated Slurm nodes (SLURMD_NODENAME n1, n2)
  // share one machine, and their node names resolve to nothing.
  const std::string machine = this_machine_host_name();
  if (listen_host.empty()) {
    // Loopback when every rank shares rank 0's machine: nothing off the machine can connect.
    const std::string root_machine = c.mpi->broadcast_from_root(machine);
    const bool one_machine = c.mpi->all(root_machine == machine);
    if (one_machine)
      listen_host = "127.0.0.1";
    else if (launch_.rank == 0)
      listen_host = routable_address(machine).value_or("");
  }
  // Rank 0 starts the server and sends "ok HOST PORT TOKEN", or "error WHY" so that no rank
  // waits for a server that will never be.
  std::string message;
  if (launch_.rank == 0) {
    try {
      if (listen_host.empty())
        throw InputError(
            fmt::format("host '{}' resolves to no address other ranks can reach", machine),
            "--store mpi", "name rank 0's address: --store mpi://ADDRESS");
      const std::string token = random_token();
      c.server =
          std::make_unique<TcpStoreServer>(TcpEndpoint{listen_host, 0}, token, server_options);
      message =
          fmt::format("ok {} {} {}", c.server->endpoint().host, c.server->endpoint().port, token);
    } catch (const std::exception &e) {
      c.mpi->broadcast_from_root(std::string("error ") + e.what());
      throw;
    }
  }
  message = c.mpi->broadcast_from_root(message);
  mpi_start.disarm();
  if (message.starts_with("error "))
    throw BackendError("rank 0 could not start the store: " + message.substr(6));
  TcpEndpoint endpoint;
  if (c.server) {
    endpoint = c.server->endpoint();
  } else {
    std::string token;
    endpoint = endpoint_of_root_message(message, token);
    c.client = std::make_unique<TcpStoreClient>(endpoint, token, launch_.rank, client_options);
  }
  store_text_ = fmt::format("tcp://{} (address from MPI)", endpoint.to_string());
}

World::~World() = default;

RunIdentity World::create_run_directory(const std::string &out) {
  if (launch_.world_size == 1)
    return railgauge::create_run_directory(out, host_, launch_.rank);
  std::string run_id;
  if (launch_.rank == 0) {
    run_id = railgauge::create_run_directory(out, host_, 0).run_id;
    store_->set(kRunIdKey, run_id);
  } else {
    try {
      run_id = store_->get(kRunIdKey, settings_.timeout);
    } catch (const StoreTimeout &e) {
      throw StoreTimeout(fmt::format("rank 0 did not share the run id within {} s (see rank 0's "
                                     "output: it may have stopped on an error)",
                                     settings_.timeout.count() / 1000.0),
                         e.missing_keys());
    }
  }
  remember_rank0_host();
  const fs::path dir = fs::path(out) / run_id / rank_directory_name(launch_.rank);
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec)
    throw InputError(fmt::format("cannot create this rank's run directory: {}", ec.message()),
                     dir.string(), "give --out a directory every rank can write");
  return {run_id, host_, launch_.rank, dir.string()};
}

void World::barrier(const std::string &name) {
  if (launch_.world_size == 1)
    return;
  const std::string full_name = "railgauge/" + name;
  try {
    store_barrier(*store_, full_name, launch_.rank, launch_.world_size, settings_.timeout);
    remember_rank0_host();
  } catch (const StoreTimeout &e) {
    // A rank missing because the store turned it away (wrong token, another build) is named
    // with the reason on rank 0, which alone can see it; strangers' refusals are counted apart.
    if (!connection_->server || connection_->server->refusals().total() == 0)
      throw;
    const auto missing = ranks_missing(e.missing_keys(), barrier_key_prefix(full_name));
    throw StoreTimeout(explain_missing_ranks(e.what(), missing, connection_->server->refusals()),
                       e.missing_keys());
  }
}

void World::say_stopped_early(const std::string &why) {
  if (launch_.world_size > 1)
    store_->set(kStoppedEarlyKey, fmt::format("rank {}: {}", launch_.rank, why));
}

std::optional<std::string> World::stopped_early_elsewhere() {
  if (launch_.world_size == 1)
    return std::nullopt;
  try {
    // Called after the end barrier: every rank that stopped early has said so by then.
    return store_->get(kStoppedEarlyKey, Milliseconds(0));
  } catch (const StoreTimeout &) {
    return std::nullopt;
  }
}

// Rank 0 set its host before serving anyone, so that it is there once the run id or a barrier
// passed; a rank whose store vanished later can still say where rank 0 ran.
void World::remember_rank0_host() {
  if (!connection_->client || !rank0_host_.empty())
    return;
  try {
    rank0_host_ = store_->get(host_key(0), Milliseconds(0));
  } catch (const BackendError &) {
    // not said yet, or the store is already gone: lost_ranks names rank 0 without a host
  }
}

nlohmann::json World::lost_ranks() {
  auto lost = nlohmann::json::array();
  if (launch_.world_size == 1)
    return lost;
  // Rank 0's store is gone: rank 0 is the rank lost (killed, or its node down), and its host
  // is the node to judge, not this one whose points it stopped.
  if (connection_->client)
    if (const auto gone = connection_->client->server_lost()) {
      nlohmann::json entry = {{run_field::kLostRank, 0}, {run_field::kLostReason, *gone}};
      if (!rank0_host_.empty())
        entry[run_field::kLostHost] = rank0_host_;
      lost.push_back(std::move(entry));
      return lost;
    }
  const auto look = [&](const std::string &key) -> std::optional<std::string> {
    try {
      return store_->get(key, Milliseconds(0));
    } catch (const BackendError &) { // not there (StoreTimeout), or the store is gone
      return std::nullopt;
    }
  };
  const auto listed = look(kLostRanksKey);
  if (!listed)
    return lost;
  const std::string arrived_at_end = barrier_key_prefix("railgauge/end");
  for (const auto &[rank, why] : parse_lost_ranks(*listed)) {
    if (look(arrived_at_end + std::to_string(rank)))
      continue;
    nlohmann::json entry = {{run_field::kLostRank, rank}, {run_field::kLostReason, why}};
    if (const auto host = look(host_key(rank)))
      entry[run_field::kLostHost] = *host;
    lost.push_back(std::move(entry));
  }
  return lost;
}

void World::say_refused(const std::string &why) {
  store_->set(kRefusedKey, fmt::format("rank {} ({}): {}", launch_.rank, host_, why));
}

std::optional<std::string> World::refused_anywhere() {
  try {
    // Called after the start barrier: every rank that refuses has said so by then. One rank's
    // store is in memory and holds its own word.
    return store_->get(kRefusedKey, Milliseconds(0));
  } catch (const StoreTimeout &) {
    return std::nullopt;
  }
}

nlohmann::json World::describe() const {
  return {{run_field::kWorldSize, launch_.world_size},
          {run_field::kWorldRank, launch_.rank},
          {"local_rank", launch_.local_rank},
          {"launcher", launch_.source},
          {"store", store_text_},
          {"store_timeout_s", settings_.timeout.count() / 1000.0}};
}

} // namespace railgauge
