#include "gemm/cuda/reference_check.h"

#include "gemm/cuda/lt_matmul.h"
#include "gemm/verify_bound.h"
#include "harness/cuda/check.h"
#include "harness/cuda/resources.h"

namespace railgauge::gemm {

ReferenceProblem reference_problem(const void *a, const void *b, const void *c, Dtype dtype,
                                   const GemmShape &shape, Layout layout) {
  const DtypeStorage storage = dtype_storage(dtype);
  ReferenceProblem pr;
  pr.a = a;
  pr.b = b;
  pr.c = c;
  pr.a_type = storage.a;
  pr.b_type = storage.b;
  pr.c_type = storage.c;
  pr.m = shape.m;
  pr.n = shape.n;
  pr.k = shape.k;
  pr.batch = shape.batch;
  pr.a_transposed = a_transposed(layout);
  pr.b_transposed = b_transposed(layout);
  pr.scale = dtype == Dtype::fp8_e4m3 ? double(kFp8Scales[0]) * double(kFp8Scales[1]) : 1.0;
  pr.bound = verify_bound(dtype);
  return pr;
}

std::vector<double> sampled_reference_errors(const ReferenceProblem &problem,
                                             const std::vector<std::int64_t> &elements,
                                             cudaStream_t stream) {
  gpu::DeviceBuffer indices(elements.size() * sizeof(std::int64_t));
  gpu::DeviceBuffer errors(elements.size() * sizeof(double));
  RAILGAUGE_CUDA_CALL(cudaMemcpyAsync(indices.get(), elements.data(), indices.bytes(),
                                      cudaMemcpyHostToDevice, stream));
  reference_errors(problem, indices.as<std::int64_t>(), static_cast<std::int64_t>(elements.size()),
                   errors.as<double>(), stream);
  std::vector<double> host(elements.size());
  RAILGAUGE_CUDA_CALL(
      cudaMemcpyAsync(host.data(), errors.get(), errors.bytes(), cudaMemcpyDeviceToHost, stream));
  RAILGAUGE_CUDA_CALL(cudaStreamSynchronize(stream));
  return host;
}

} // namespace railgauge::gemm
