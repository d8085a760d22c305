#pragma once
// What every point that runs on every local GPU at once for a set time shares (gemm.burn,
// memory.burn: a burn-in phase): its duration_s and gpu axes read and checked one way, and one
// thread per GPU, each owning its result and catching everything, so that a GPU that breaks is
// reported by its own result while the others finish.
#include <exception>
#include <string>
#include <thread>
#include <vector>

#include "harness/axis.h"

namespace railgauge {

struct EveryGpuAxes {
  double duration_s = 0;
  std::vector<int> gpus; // the devices to load: every visible one for gpu = -1
};

// The two axes: duration_s (default `default_s`; `what` says what runs, e.g. "repeated GEMMs")
// and gpu (-1: every visible GPU at once).
Axis every_gpu_duration_axis(double default_s, const std::string &what);
Axis every_gpu_device_axis();

// Reads duration_s (seconds, more than 0 and at most a week) and gpu (-1: each of the
// `gpus_visible` devices; else that one). Throws InputError naming the axis.
EveryGpuAxes every_gpu_axes(const Point &point, int gpus_visible);

// Reads the gpu axis alone, for a point that runs on every GPU for a set amount of work rather
// than a set time (memory.pattern): -1 gives each of the `gpus_visible` devices. Throws
// InputError naming the axis.
std::vector<int> every_gpu_devices(const Point &point, int gpus_visible);

// Runs `work(gpu, result)` for each of `gpus` at once, one thread each; results in the order of
// `gpus`. An exception leaves its text in that result's `error` (std::optional<std::string>).
template <typename Result, typename Work>
std::vector<Result> run_on_every_gpu(const std::vector<int> &gpus, Work work) {
  std::vector<Result> results(gpus.size());
  std::vector<std::jthread> threads; // joined on every path, an exception included
  for (std::size_t i = 0; i < gpus.size(); ++i)
    threads.emplace_back([&work, gpu = gpus[i], &r = results[i]] {
      try {
        work(gpu, r);
      } catch (const std::exception &e) {
        r.error = e.what();
      } catch (...) {
        r.error = "an exception that is not a std::exception";
      }
    });
  for (auto &t : threads)
    t.join();
  return results;
}

} // namespace railgauge
