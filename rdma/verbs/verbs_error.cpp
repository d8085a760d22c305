#include "rdma/verbs/verbs_error.h"

#include <infiniband/verbs.h>

#include <cerrno>
#include <cstring>

#include <fmt/format.h>

#include "harness/error.h"

namespace railgauge::rdma {
namespace {

std::string_view base_name(std::string_view file) {
  const auto slash = file.find_last_of('/');
  return slash == std::string_view::npos ? file : file.substr(slash + 1);
}

const char *opcode_name(ibv_wc_opcode op) {
  switch (op) {
  case IBV_WC_SEND:
    return "SEND";
  case IBV_WC_RDMA_WRITE:
    return "RDMA_WRITE";
  case IBV_WC_RDMA_READ:
    return "RDMA_READ";
  case IBV_WC_RECV:
    return "RECV";
  case IBV_WC_RECV_RDMA_WITH_IMM:
    return "RECV_RDMA_WITH_IMM";
  default:
    return "other";
  }
}

} // namespace

void throw_on_verbs_error(int rc, std::string_view call, std::string_view file, int line) {
  if (rc == 0)
    return;
  const int err = rc < 0 ? -rc : rc;
  throw BackendError(fmt::format("{} failed: {} ({}) at {}:{}", call, std::strerror(err), err,
                                 base_name(file), line));
}

void throw_verbs_null(std::string_view call, std::string_view file, int line) {
  const int err = errno;
  throw BackendError(fmt::format("{} failed: {} ({}) at {}:{}", call, std::strerror(err), err,
                                 base_name(file), line));
}

std::string completion_error_text(const ibv_wc &wc) {
  // The opcode of an errored completion is only valid for some statuses; it is printed as a
  // hint, and wr_id tells which request it was.
  return fmt::format("completion error on QP {:#x}: {} (status {}), opcode {}, wr_id {:#x}, "
                     "vendor_err {:#x}",
                     wc.qp_num, ibv_wc_status_str(wc.status), static_cast<int>(wc.status),
                     opcode_name(wc.opcode), wc.wr_id, wc.vendor_err);
}

} // namespace railgauge::rdma
