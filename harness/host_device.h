#pragma once
// RAILGAUGE_HOST_DEVICE: a function that host code and CUDA kernels share (a data pattern, an
// element comparison), compiled for both by nvcc and as plain C++ by the host compiler, so that
// what the host tests check is what the GPU runs.
#if defined(__CUDACC__)
#define RAILGAUGE_HOST_DEVICE __host__ __device__
#else
#define RAILGAUGE_HOST_DEVICE
#endif
