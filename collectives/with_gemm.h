#pragma once
// What the all_reduce-beside-a-GEMM benchmarks share, whatever the backend
// (collectives.mpi_all_reduce_with_gemm: host memory and OpenBLAS; collectives.nccl_all_reduce_
// with_gemm: one GPU's NCCL all_reduce and cuBLASLt GEMM on two streams). Both follow
// offload.with_gemm: each operation alone, then both in windows balanced so that they overlap
// for most of the window, every window in lockstep over the ranks; an operation's time per call
// is, per window, the max over ranks (what a synchronous step waits for), then the median over
// windows. The GEMM's slowdown is what `railgauge calibrate` turns into Calculon's
// networks[i].processor_usage = 1 - 1/slowdown. Plain C++: tested without MPI or a GPU.
#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "harness/axis.h"
#include "harness/lockstep.h"

namespace railgauge::collectives {

// The axes of each backend's benchmark, the same in a build that waives it: those of the
// backend's all_reduce without in_place (out of place only: an in-place all_reduce repeated
// within a window sums its own output until it overflows), plus gemm_mnk. MPI runs on the world
// only (one all_reduce beside one GEMM per rank); NCCL keeps groups and group_type, so that a
// tp group inside the NVLink domain and a dp group across nodes each measure their own tier.
std::vector<Axis> mpi_all_reduce_with_gemm_axes();
std::vector<Axis> nccl_all_reduce_with_gemm_axes();

// What one measured window runs: `all_reduces` back to back beside `gemms` back to back.
struct OverlapWindow {
  int all_reduces = 0;
  int gemms = 0;
};

// The balanced window: one of the longer operation and as many of the shorter as fit in it
// (rounded, at least 1, at most `max_per_window`), so that the two overlap for most of the
// window. Every rank passes the same (gathered) times and gets the same window. Throws
// std::invalid_argument unless both times are positive and finite and max_per_window >= 1.
OverlapWindow balance_window(double all_reduce_alone_s, double gemm_alone_s, int max_per_window);

// The untimed calls each operation enqueues after its stop event in a window that runs both
// (harness/lane_contention.h), so that neither runs its last timed calls alone, from each
// operation's seconds per call: each pads until the other's timed calls have ended, with half
// again as margin and one more call, at most `max_calls`. None for a window of one operation.
// Given times every rank holds alike (gathered), every rank pads alike, as collectives need.
// Throws std::invalid_argument unless both times are positive and finite and max_calls >= 1.
OverlapWindow window_padding(const OverlapWindow &w, double all_reduce_s, double gemm_s,
                             int max_calls);

// Per window, the max over ranks of each operation's time per call.
struct WindowTimes {
  LockstepResult all_reduce, gemm;
};

// Measures the balanced windows (`measure` runs them with the caller's `padding`): padded first
// from the times alone, then, when the times together call for more (the operations slowed
// unevenly), measured again with that padding. Leaves `padding` as last used. The times are
// gathered, so every rank pads alike.
WindowTimes measure_padded(const OverlapWindow &balanced, double all_reduce_alone_s,
                           double gemm_alone_s, int max_calls, OverlapWindow &padding,
                           const std::function<WindowTimes(const OverlapWindow &)> &measure);

// Each operation alone, then both in the balanced window (measure_padded), as both backends
// measure them: the seconds per call of each alone, the window, the padding last used and the
// times together.
struct OverlapRun {
  double all_reduce_alone_s = 0, gemm_alone_s = 0;
  OverlapWindow balanced, padding;
  WindowTimes both;
};
OverlapRun measure_overlap(int max_per_window, OverlapWindow &padding,
                           const std::function<WindowTimes(const OverlapWindow &)> &measure);

// The lockstep summary of times already all-gathered: `all` holds rows of `iterations` values
// (a rank's, or a GPU's when one process drives several), row after row; `rank_names[r]` names
// row r (empty: 0..rows-1). Throws std::invalid_argument when `all` is not whole rows.
LockstepResult summarize_gathered(const std::vector<double> &all, int iterations,
                                  std::span<const int> rank_names, int own_rank);

// Seconds per call of each operation, alone and in the balanced window (slowest rank, median
// over windows).
struct OverlapTimes {
  double all_reduce_alone_s = 0, all_reduce_concurrent_s = 0;
  double gemm_alone_s = 0, gemm_concurrent_s = 0;
};

// The metrics both backends record: allreduce_alone_s, allreduce_concurrent_s, gemm_alone_s,
// gemm_concurrent_s, gemm_slowdown (concurrent / alone; > 1: the GEMM lost compute to the
// collective), collective_slowdown (the same for the all_reduce), busbw_alone_gbytes_per_s and
// busbw_concurrent_gbytes_per_s of an all_reduce of `size_bytes` on `group_ranks` ranks. A
// slowdown or bandwidth over a time that is not positive is null, not infinity.
nlohmann::json overlap_metrics(const OverlapTimes &t, std::uint64_t size_bytes, int group_ranks);

// What a window ran, in both backends' records: gemms_per_window and allreduces_per_window (the
// balanced window) and padding_per_window {all_reduces, gemms} (the untimed calls last used).
nlohmann::json window_metrics(const OverlapWindow &balanced, const OverlapWindow &padding);

// The data-check problem of the GEMM: `wrong_all` sampled entries over all ranks differ from
// the exact product, `wrong_mine` of them on this rank (process); nullopt when none.
std::optional<std::string> gemm_problem(std::uint64_t wrong_all, std::uint64_t wrong_mine);

} // namespace railgauge::collectives
