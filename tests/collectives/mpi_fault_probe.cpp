// A fault-injection program for tests/collectives/fault_test.py, run under mpirun: one
// all_reduce point with a short watchdog timeout, and one rank that misbehaves at timed
// iteration 2: `hang R` sleeps (a rank that never joins), `kill R` SIGKILLs itself mid-run.
// Every surviving rank prints its outcome: "rank N outcome: <status>: <reason>".
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <thread>

#include "collectives/mpi/mpi_collective.h"
#include "harness/run_context.h"

using namespace railgauge;
using namespace railgauge::collectives;

int main(int argc, char **argv) {
  if (argc != 3) {
    std::fprintf(stderr, "usage: mpi_fault_probe hang|kill RANK\n");
    return 2;
  }
  const std::string mode = argv[1];
  const int victim = std::atoi(argv[2]);
  Outcome out;
  int rank = 0;
  {
    auto family = std::make_shared<MpiFamily>();
    auto hooks = std::make_shared<MpiTestHooks>();
    rank = family->session(60.0).rank();
    hooks->before_iteration = [&](int iteration) {
      if (rank != victim || iteration != 2)
        return;
      if (mode == "kill")
        std::raise(SIGKILL);
      std::this_thread::sleep_for(std::chrono::seconds(60));
    };
    auto bench = make_mpi_collective(Kind::all_reduce, family, hooks);
    Topology topology = Topology::load_this_machine();
    GBenchSampler sampler;
    RunContext ctx(topology, sampler, "probe", rank);
    Point point;
    for (const auto &axis : bench->axes())
      point.set(axis.name, axis.defaults.front());
    point.set("timeout_s", 2.0);
    point.set("iterations", std::int64_t{10});
    try {
      out = bench->run(ctx, point);
    } catch (const std::exception &e) {
      out.status = Status::error;
      out.reason = e.what();
    }
    std::printf("rank %d outcome: %s: %s\n", rank, std::string(to_string(out.status)).c_str(),
                out.reason.value_or("").c_str());
    std::fflush(stdout);
  } // the family ends here: MPI_Abort after a watchdog expiry, MPI_Finalize otherwise
  return out.status == Status::ok ? 0 : 1;
}
