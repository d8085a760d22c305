#pragma once
// The TCP store: rank 0 serves the key-value table on the one address it is told, every other
// rank connects to it (docs/design.md "Launching across nodes"). Wire format and limits:
// harness/store/store_wire.h.
//
// The server lets in only clients that open with the right magic, protocol version and run
// token; it refuses the others with a message and closes. A malformed or oversized message
// drops that connection only; a connection that says nothing (no hello, or no request for
// `idle_timeout`) is closed. Clients reconnect by themselves after an idle close, so a long
// benchmark point between two store operations is fine: every request is idempotent.
//
//   TcpStoreServer server({"10.0.0.1", 0}, token);          // rank 0
//   TcpStoreClient store(server_endpoint, token, rank);     // every other rank
//   store_barrier(store, "start", rank, world_size, 300s);  // rank 0 uses `server` itself
#include <atomic>
#include <condition_variable>
#include <cstddef>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "harness/store/refusal_log.h"
#include "harness/store/socket.h"
#include "harness/store/store.h"

namespace railgauge {

struct TcpStoreServerOptions {
  // An authenticated client that sends no request for this long is disconnected (it reconnects
  // when it next needs the store).
  Milliseconds idle_timeout{600'000};
  // A connection that has not sent a whole hello by then is refused. A rank sends its hello the
  // moment it connects, so a connection still silent after this is a stranger.
  Milliseconds hello_timeout{3'000};
  // Connections beyond this are closed at once; the server also keeps below the process's
  // descriptor limit less descriptor_reserve (connection_limit()).
  std::size_t max_connections = 16384;
  // Descriptors left to the rest of rank 0 (its benchmarks' sockets, files, CUDA and NCCL)
  // when the limit comes from RLIMIT_NOFILE; half the limit when that is less than twice this.
  std::size_t descriptor_reserve = 256;
  // Connections that have not said hello yet, at most; a new one beyond this closes the oldest.
  // Idle connections (a port scanner, a flood) then cost a few descriptors, never the store.
  std::size_t max_unauthenticated = 64;
  // accept() out of descriptors (EMFILE, ENFILE): the listening socket is not polled for this
  // long, instead of the loop spinning on a connection it cannot take.
  Milliseconds accept_backoff{500};
  // Keys and values held in all, so that no client can exhaust rank 0's memory.
  std::size_t max_total_bytes = std::size_t{1} << 30;
  // How long the destructor waits for clients to hang up before it closes their connections.
  Milliseconds shutdown_grace{10'000};
  // The ranks of the run; 0: not known, and no rank is ever called lost. A rank 1..world_size-1
  // whose connections all closed from its side (its process ended or was killed, its node went
  // down) is lost: from then on every wait that misses a key and may wait fails at once with
  // PeerLost naming it, rather than waiting out its timeout for a key that no one will set (an
  // OOM-killed rank cost every other rank its store timeout at each remaining point). A wait of
  // no time is still a look and answers as before. The rank is no longer lost when it connects
  // again. A closed connection is noticed within one poll round, not at the next timeout.
  int world_size = 0;
  // When not empty: the key under which the server keeps the lost ranks, one line each ("RANK
  // WHY", format_lost_ranks), in the order they were lost, or "" once none is. Every rank can then
  // read who was lost with a look of no time, not only the text of its failed wait: run.json
  // names the lost ranks so that `check` drains their nodes and not the survivors'.
  std::string lost_ranks_key;
};

// The value of TcpStoreServerOptions::lost_ranks_key, and back: (rank, why) in order. A line that
// is not "RANK WHY" is skipped (the value is the server's own, never a user's).
std::string format_lost_ranks(const std::vector<std::pair<int, std::string>> &lost);
std::vector<std::pair<int, std::string>> parse_lost_ranks(const std::string &text);

class TcpStoreServer final : public Store {
public:
  // Listens on `listen_at` (port 0: the kernel picks one; endpoint() says which). Throws
  // BackendError when the address cannot be bound.
  TcpStoreServer(const TcpEndpoint &listen_at, std::string token,
                 TcpStoreServerOptions options = {});
  // Waits up to shutdown_grace for the clients to disconnect and, when world_size is known, for
  // every rank to have connected once; then stops.
  ~TcpStoreServer() override;
  TcpStoreServer(const TcpStoreServer &) = delete;
  TcpStoreServer &operator=(const TcpStoreServer &) = delete;

  // The address clients connect to, with the port actually bound.
  const TcpEndpoint &endpoint() const { return endpoint_; }

  // The store operations of the rank that serves: on the table directly.
  void set(const std::string &key, const std::string &value) override;
  void wait(const std::vector<std::string> &keys, Milliseconds timeout) override;
  std::string get(const std::string &key, Milliseconds timeout) override;

  // The connections refused or dropped, and why (harness/store/refusal_log.h).
  RefusalLog refusals() const;
  // Connections open now (authenticated or not).
  std::size_t connection_count() const { return connection_count_; }
  // The most connections held at once: max_connections, or less under RLIMIT_NOFILE.
  std::size_t connection_limit() const { return connection_limit_; }

private:
  struct Connection;
  void serve();
  void wake();
  // Whether every rank 1..world_size-1 has said hello at least once (true when world_size is 0).
  bool every_rank_seen() const;
  void handle_input(Connection &c);
  void check_pending(Connection &c);
  void note_refusal(const Connection &c, const std::string &why);
  // Marks the rank of a connection that its peer closed lost, unless another connection of the
  // same rank is still open among `conns`.
  void note_hang_up(const Connection &c, const std::vector<std::unique_ptr<Connection>> &conns);
  // "rank 1 is lost: ..." for each lost rank; call with mutex_ held and lost_ not empty.
  std::string lost_text() const;
  // Puts lost_ under options_.lost_ranks_key, when there is one; call with mutex_ held.
  void publish_lost();
  // Sets a key of the table, keeping total_bytes_; call with mutex_ held.
  void put(const std::string &key, const std::string &value);
  // Takes the connections waiting on the listening socket, at most a pool of unauthenticated
  // ones per call; out of descriptors, pauses accepting until `accept_paused_until`.
  void accept_new(std::vector<std::unique_ptr<Connection>> &conns,
                  SteadyClock::time_point &accept_paused_until);

  TcpStoreServerOptions options_;
  std::string token_;
  TcpEndpoint endpoint_;
  UniqueFd listen_fd_;
  UniqueFd wake_read_, wake_write_;

  mutable std::mutex mutex_; // guards values_, total_bytes_, refusals_, lost_, ranks_seen_
  std::condition_variable changed_;
  // Values are shared with the replies that carry them (harness/store/outbox.h).
  std::map<std::string, std::shared_ptr<const std::string>> values_;
  std::size_t total_bytes_ = 0;
  RefusalLog refusals_;
  // The lost ranks and why, in the order they were lost: the first is most often the cause,
  // and the later ones ranks that ended on learning it (options_.world_size).
  std::vector<std::pair<int, std::string>> lost_;
  // The ranks that have said hello at least once (options_.world_size known).
  std::set<int> ranks_seen_;

  std::atomic<bool> stopping_{false};
  std::atomic<std::size_t> connection_count_{0};
  std::size_t connection_limit_ = 0;
  std::thread thread_;
};

struct TcpStoreClientOptions {
  // How long to keep trying to reach the server at first (it may start after this rank).
  Milliseconds connect_timeout{300'000};
  // How long to try again after the connection was lost (an idle close, or rank 0 gone).
  Milliseconds reconnect_timeout{10'000};
  // A reply may come this much later than the wait it answers before the server counts as
  // unresponsive.
  Milliseconds reply_grace{10'000};
};

class TcpStoreClient final : public Store {
public:
  // Connects and says hello. Throws InputError when the server refuses this client (wrong token
  // or version), BackendError when it cannot be reached within connect_timeout.
  TcpStoreClient(TcpEndpoint server, std::string token, int rank,
                 TcpStoreClientOptions options = {});

  void set(const std::string &key, const std::string &value) override;
  void wait(const std::vector<std::string> &keys, Milliseconds timeout) override;
  std::string get(const std::string &key, Milliseconds timeout) override;

  // Why rank 0's store is gone, once a request found it could not be reached again (every later
  // request fails with PeerLost); nothing while it still answers.
  std::optional<std::string> server_lost();

private:
  UniqueFd open_connection(SteadyClock::time_point deadline);
  // One connection and hello; an empty UniqueFd when the server closed it before answering.
  UniqueFd try_hello(SteadyClock::time_point deadline);
  std::string request(const std::string &frame, Milliseconds reply_timeout,
                      const std::vector<std::string> &keys);

  TcpEndpoint server_;
  std::string token_;
  int rank_;
  TcpStoreClientOptions options_;
  std::mutex mutex_; // one request at a time on the connection
  UniqueFd fd_;
  // Set once rank 0's store could not be reached again within reconnect_timeout: every later
  // request fails at once with it (PeerLost), rather than waiting that timeout again.
  std::string server_gone_;
};

} // namespace railgauge
