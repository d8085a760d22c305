// A co-tenant for the burn-in's proof on a GPU (scripts/burnin_proof.sh): a second process that
// keeps a share of one GPU's SMs busy, so the burn-in must see that GPU slow and name it.
//
//   cotenant_spin DEVICE SM_PERCENT SECONDS [DUTY_PERCENT]
//
// Each launch puts one block of 1024 threads with most of the SM's shared memory on
// SM_PERCENT% of the SMs (so nothing else fits on those SMs while it runs) and spins ~20 ms;
// launches follow each other until SECONDS have passed. Without MPS the driver time-slices the
// two processes' contexts, so the burn-in loses a share of the GPU's time as well: either way the
// GPU works below what it does alone. That time-slicing costs the burn-in about the same whatever
// the share (on one H200, 19 SMs held and 66 both took 45 % of the GEMM burn): DUTY_PERCENT
// (default 100) spins only that share of the time, idle between launches, for a GPU slowed by
// less, near a floor's margin. Exits 0 when it ran the whole time; any CUDA error is printed with
// the call and exits 1.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <thread>

#include <cuda_runtime.h>

namespace {

#define CHECK(call)                                                                                \
  do {                                                                                             \
    const cudaError_t e = (call);                                                                  \
    if (e != cudaSuccess) {                                                                        \
      std::fprintf(stderr, "cotenant_spin: %s: %s\n", #call, cudaGetErrorString(e));               \
      std::exit(1);                                                                                \
    }                                                                                              \
  } while (0)

__global__ void spin(long long cycles, int *sink) {
  extern __shared__ int held[]; // holds the SM's shared memory while the block spins
  const long long start = clock64();
  int x = threadIdx.x;
  while (clock64() - start < cycles)
    x = x * 1664525 + 1013904223;
  held[threadIdx.x] = x;
  __syncthreads();
  if (x == 42 && threadIdx.x == 0) // never in practice; keeps the loop from being removed
    *sink = held[1];
}

} // namespace

int main(int argc, char **argv) {
  if (argc != 4 && argc != 5) {
    std::fprintf(stderr, "usage: cotenant_spin DEVICE SM_PERCENT SECONDS [DUTY_PERCENT]\n");
    return 2;
  }
  const int device = std::atoi(argv[1]);
  const int percent = std::atoi(argv[2]);
  const double seconds = std::atof(argv[3]);
  const int duty = argc == 5 ? std::atoi(argv[4]) : 100;
  if (percent < 1 || percent > 100 || !(seconds > 0) || duty < 1 || duty > 100) {
    std::fprintf(stderr, "cotenant_spin: SM_PERCENT 1..100, SECONDS > 0, DUTY_PERCENT 1..100\n");
    return 2;
  }
  CHECK(cudaSetDevice(device));
  cudaDeviceProp prop{};
  CHECK(cudaGetDeviceProperties(&prop, device));
  const int blocks = std::max(1, prop.multiProcessorCount * percent / 100);
  const int shared_bytes = static_cast<int>(prop.sharedMemPerBlockOptin);
  CHECK(cudaFuncSetAttribute(spin, cudaFuncAttributeMaxDynamicSharedMemorySize, shared_bytes));
  int *sink = nullptr;
  CHECK(cudaMalloc(&sink, sizeof(int)));
  int clock_khz = 0; // CUDA 13 has it as an attribute only (cudaDeviceProp lost clockRate)
  CHECK(cudaDeviceGetAttribute(&clock_khz, cudaDevAttrClockRate, device));
  const long long cycles = static_cast<long long>(clock_khz) * 20; // kHz x 20 ms
  std::printf("cotenant_spin: GPU %d (%s): %d of %d SMs held %d %% of the time, %.0f s\n", device,
              prop.name, blocks, prop.multiProcessorCount, duty, seconds);
  std::fflush(stdout);
  const auto start = std::chrono::steady_clock::now();
  long long launches = 0;
  while (std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count() <
         seconds) {
    const auto launched = std::chrono::steady_clock::now();
    spin<<<blocks, 1024, shared_bytes>>>(cycles, sink);
    CHECK(cudaGetLastError());
    CHECK(cudaDeviceSynchronize());
    ++launches;
    if (duty < 100) // idle (100 - duty) / duty of the time the launch took
      std::this_thread::sleep_for((std::chrono::steady_clock::now() - launched) * (100 - duty) /
                                  duty);
  }
  CHECK(cudaFree(sink));
  std::printf("cotenant_spin: %lld launches\n", launches);
  return 0;
}
