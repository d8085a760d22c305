#pragma once
// acc = op(acc, in) on device memory, enqueued on a stream: the reduction step of the textbook
// algorithms when they run on NCCL send/recv. Same arithmetic as reduce_into() on the host
// (dtype.h): 16-bit floats reduce in float and round to nearest even, int32 sum and product
// wrap around, max and min pick as std::max and std::min do. Results agree bit for bit except
// for NaN, whose bit pattern may differ (the data check counts any NaN as wrong anyway).
#include <cstddef>

#include <cuda_runtime_api.h>

#include "collectives/element_type.h"

namespace railgauge::collectives {

void enqueue_device_reduce(DType type, RedOp op, void *acc, const void *in, std::size_t count,
                           cudaStream_t stream);

} // namespace railgauge::collectives
