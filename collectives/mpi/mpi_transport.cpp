#include "collectives/mpi/mpi_transport.h"

#include <algorithm>
#include <vector>

namespace railgauge::collectives {
namespace {
constexpr std::size_t kChunkBytes = std::size_t{1} << 30;
constexpr int kTag = 11;
} // namespace

MpiTransport::MpiTransport(MpiSession &s, MPI_Comm comm, double timeout_s)
    : s_(s), comm_(comm), timeout_s_(timeout_s) {
  MPI_Comm_rank(comm, &rank_);
  MPI_Comm_size(comm, &size_);
}

void MpiTransport::sendrecv(int to, const std::byte *send_data, std::size_t send_bytes, int from,
                            std::byte *recv_data, std::size_t recv_bytes) {
  std::vector<MPI_Request> requests;
  // Always at least one message per direction, so a zero-byte block still pairs up.
  if (from >= 0)
    for (std::size_t at = 0; at == 0 || at < recv_bytes; at += kChunkBytes) {
      const auto n = static_cast<int>(std::min(kChunkBytes, recv_bytes - at));
      MPI_Request r;
      check_mpi(MPI_Irecv(recv_data + at, n, MPI_BYTE, from, kTag, comm_, &r), "MPI_Irecv");
      requests.push_back(r);
      if (recv_bytes == 0)
        break;
    }
  if (to >= 0)
    for (std::size_t at = 0; at == 0 || at < send_bytes; at += kChunkBytes) {
      const auto n = static_cast<int>(std::min(kChunkBytes, send_bytes - at));
      MPI_Request r;
      check_mpi(MPI_Isend(send_data + at, n, MPI_BYTE, to, kTag, comm_, &r), "MPI_Isend");
      requests.push_back(r);
      if (send_bytes == 0)
        break;
    }
  s_.wait_all(requests, "point-to-point message of a textbook algorithm", timeout_s_);
}

} // namespace railgauge::collectives
