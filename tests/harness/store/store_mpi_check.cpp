// The program the mpi-tier tests start under mpirun: the ranks set the TCP store up through MPI
// exactly as railgauge does (harness/launch.h World with --store mpi), then
//   store_mpi_check gather OUT_DIR TIMEOUT_MS      barrier, all-gather, barrier: every rank checks
//                                                  the gathered values and writes rank-N.txt
//   store_mpi_check kill OUT_DIR TIMEOUT_MS RANK   RANK kills itself (SIGKILL) before the barrier;
//                                                  every other rank writes what its barrier said
// Exit status 0 when this rank saw what it should, 1 otherwise.
#include <chrono>
#include <csignal>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <string>

#include <fmt/format.h>

#include "harness/launch.h"

using namespace railgauge;

int main(int argc, char **argv) {
  if (argc < 4) {
    std::cerr << "usage: store_mpi_check gather|kill OUT_DIR TIMEOUT_MS [RANK]\n";
    return 2;
  }
  const std::string mode = argv[1], out_dir = argv[2];
  const Milliseconds timeout{std::atoll(argv[3])};
  const Environment env = process_environment();
  const LaunchInfo launch = launch_info_from(env);
  std::ofstream out(fmt::format("{}/rank-{}.txt.tmp", out_dir, launch.rank));
  int status = 1;
  {
    World world(launch, {"mpi", timeout}, env, "store-mpi-check");
    Store &store = *world.store();
    const auto start = std::chrono::steady_clock::now();
    if (mode == "gather") {
      store_barrier(store, "in", launch.rank, launch.world_size, timeout);
      const auto got = store_all_gather(store, "who", launch.rank, launch.world_size,
                                        fmt::format("value-of-rank-{}", launch.rank), timeout);
      status = 0;
      for (int r = 0; r < launch.world_size; ++r)
        if (got.at(r) != fmt::format("value-of-rank-{}", r))
          status = 1;
      store_barrier(store, "out", launch.rank, launch.world_size, timeout);
      out << fmt::format("rank {} of {} gathered {} values, {}\n", launch.rank, launch.world_size,
                         got.size(), status == 0 ? "all right" : "WRONG");
    } else if (mode == "kill" && argc > 4) {
      if (launch.rank == std::atoi(argv[4]))
        std::raise(SIGKILL);
      try {
        store_barrier(store, "before", launch.rank, launch.world_size, timeout);
        out << "the barrier passed without the killed rank\n";
      } catch (const BackendError &e) { // StoreTimeout, or PeerLost once the store saw it go
        const double waited_s =
            std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
        out << fmt::format("{}\nwaited_s {:.3f}\n", e.what(), waited_s);
        status = 0;
      }
    }
  }
  out.close();
  // Renamed once complete, so that a test polling for the file never reads half of it.
  std::rename(fmt::format("{}/rank-{}.txt.tmp", out_dir, launch.rank).c_str(),
              fmt::format("{}/rank-{}.txt", out_dir, launch.rank).c_str());
  return status;
}
