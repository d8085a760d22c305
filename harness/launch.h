#pragma once
// Who this process is among the ranks a launcher started (mpirun, srun), and the connected
// world of a multi-rank run: its store, its one agreed run directory, its barriers
// (docs/design.md "Launching across nodes", docs/launch.md).
//
//   const LaunchInfo launch = launch_info_from(process_environment());
//   World world(launch, settings, process_environment(), this_host_name());
//   ctx.set_world(world.world_size(), world.store());
//   const RunIdentity id = world.create_run_directory(out);  // <out>/<run-id>/rank-00003
//   world.barrier("start");
#include <functional>
#include <memory>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "harness/manifest.h"
#include "harness/store/store.h"

namespace railgauge {

struct TcpStoreClientOptions;
struct TcpStoreServerOptions;

// Reads an environment variable; passed in so that tests can give any environment.
using Environment = std::function<std::optional<std::string>(const std::string &name)>;
Environment process_environment();

struct LaunchInfo {
  int world_size = 1;
  int rank = 0;
  int local_rank = 0;
  // Where the numbers came from: "OMPI_COMM_WORLD_*", "PMI_*", "SLURM_*" or "none".
  std::string source = "none";
  // Started by an MPI launcher, so MPI can carry the store's address (--store mpi).
  bool mpi_launcher = false;
};

// Rank, world size and local rank from the launcher's variables, first found wins for each:
//   rank:       OMPI_COMM_WORLD_RANK, PMIX_RANK, PMI_RANK, SLURM_PROCID
//   world size: OMPI_COMM_WORLD_SIZE, PMI_SIZE, SLURM_NTASKS
//   local rank: OMPI_COMM_WORLD_LOCAL_RANK, MPI_LOCALRANKID, SLURM_LOCALID
// The MPI launchers' own variables (OMPI_*, PMIX_*, PMI_*) must agree with each other. SLURM_*
// is read only when none of them is set: mpirun inside a Slurm allocation starts its ranks from
// daemons whose SLURM_PROCID is the node's index, not the rank. Throws InputError when a value is
// not a whole number, a rank is outside 0..size-1, or two MPI variables disagree.
LaunchInfo launch_info_from(const Environment &env);

struct StoreSettings {
  // --store (or RAILGAUGE_STORE): "tcp://HOST:PORT" (rank 0 listens there, the others connect),
  // "mpi" or "mpi://HOST" (rank 0 listens on HOST, or on loopback when every rank is on its host,
  // port picked by the kernel, and MPI tells the others). Unset: mpi under an MPI launcher when
  // built with MPI, nothing otherwise.
  std::optional<std::string> url;
  Milliseconds timeout{300'000}; // --store-timeout: every wait of the run's own rendezvous
};

// The ranks of one run, connected. A single rank gets an in-memory store and today's layout
// (<out>/<run-id>/); several ranks get the TCP store and <out>/<run-id>/rank-<NNNNN>/ each.
class World {
public:
  // Connects to (rank 0: serves) the store when the world has more than one rank. Throws
  // InputError for a missing or bad store setting or run token, BackendError when the store
  // cannot be reached within settings.timeout.
  World(const LaunchInfo &launch, StoreSettings settings, const Environment &env, std::string host);
  ~World();
  World(const World &) = delete;
  World &operator=(const World &) = delete;

  int rank() const { return launch_.rank; }
  int world_size() const { return launch_.world_size; }
  Store *store() const { return store_; }

  // One rank: create_run_directory(out). Several: rank 0 creates <out>/<run-id>/ and shares the
  // id through the store; every rank then creates its own rank-<NNNNN>/ below it (on a shared
  // file system or not). Throws StoreTimeout when rank 0 never shares the id.
  RunIdentity create_run_directory(const std::string &out);

  // Returns once every rank has called barrier(name); throws StoreTimeout naming the ranks that
  // did not arrive within the store timeout. Nothing to wait for with one rank.
  void barrier(const std::string &name);

  // A rank that stopped before its last point (a lost peer) says why before the end barrier;
  // after it, every rank asks, so that no rank calls the run complete when another one was cut
  // short. "rank 1: why" of the last rank to say so; nothing with one rank or when none did.
  void say_stopped_early(const std::string &why);
  std::optional<std::string> stopped_early_elsewhere();

  // The ranks the store saw go (their connection closed: a process killed, a node down) that
  // did not reach the end barrier, for run.json's lost_ranks: [{"rank": 1, "host": "node-b",
  // "reason": "rank 1 is lost: ..."}], in the order they were lost, "host" absent where that
  // rank never said it. A rank that reached the end barrier and then hung up ended on learning
  // of the loss: a consequence, not the cause, so it is left out. Ask only after the store
  // answered PeerLost; empty with one rank or when none is lost. Where rank 0's store itself
  // vanished, rank 0 is the one lost, on the host it said before it went.
  nlohmann::json lost_ranks();

  // A rank whose node lacks what --expect names says so before the start barrier; after it,
  // every rank asks, so that the whole run is refused before its first point, not only that
  // node's ranks (the others would wait for them in every collective). "rank 1 (node2): why"
  // of the last rank to say so, this one included; nothing when none did.
  void say_refused(const std::string &why);
  std::optional<std::string> refused_anywhere();

  // For run.json: size, rank, local rank, launcher, store.
  nlohmann::json describe() const;

private:
  struct Connection;
  void meet_through_mpi(const std::string &url, const TcpStoreClientOptions &client_options,
                        const TcpStoreServerOptions &server_options);
  void remember_rank0_host();
  LaunchInfo launch_;
  StoreSettings settings_;
  std::string host_;
  std::string store_text_ = "memory";
  std::string rank0_host_; // another rank's copy of rank 0's host, for lost_ranks
  std::unique_ptr<Connection> connection_;
  Store *store_ = nullptr;
};

// "rank-00003": a rank's directory inside a multi-rank run directory.
std::string rank_directory_name(int rank);

} // namespace railgauge
