#pragma once
// Error reporting for libibverbs calls. Verbs return the errno as their
// result: the return value is reported, never the global errno, except for the calls that
// signal failure with NULL (ibv_open_device, ibv_alloc_pd, ibv_reg_mr, ibv_create_cq,
// ibv_create_qp), which set errno.
//
//   RAILGAUGE_VERBS_CALL(ibv_modify_qp(qp, &attr, mask)); // throws BackendError
#include <string>
#include <string_view>

struct ibv_wc;

namespace railgauge::rdma {

// "ibv_modify_qp(qp, &attr, mask) failed: Invalid argument (22) at endpoint.cpp:42"
void throw_on_verbs_error(int rc, std::string_view call, std::string_view file, int line);
// For the NULL-returning calls: reads errno.
[[noreturn]] void throw_verbs_null(std::string_view call, std::string_view file, int line);

// A completion with an error status, as perftest's NOTIFY_COMP_ERROR_SEND prints it:
// "completion error on QP 0x11: remote access error (status 10), opcode RDMA_WRITE,
//  wr_id 0x100000005, vendor_err 0x0"
std::string completion_error_text(const ibv_wc &wc);

} // namespace railgauge::rdma

#define RAILGAUGE_VERBS_CALL(call)                                                                 \
  ::railgauge::rdma::throw_on_verbs_error((call), #call, __FILE__, __LINE__)
#define RAILGAUGE_VERBS_NOT_NULL(ptr, call)                                                        \
  ((ptr) ? (void)0 : ::railgauge::rdma::throw_verbs_null(#call, __FILE__, __LINE__))
