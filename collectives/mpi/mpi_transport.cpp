#include "collectives/mpi/mpi_transport.h"

#include <algorithm>
#include <vector>

namespace railgauge::collectives {
namespace {
constexpr std::size_t kChunkBytes = std::size_t{1} << 30;
constexpr int kTag = 11;

// Posts a block as messages of at most kChunkBytes (an MPI count is an int), `post(at, n)`
// posting the n bytes from offset `at`. Always at least one message, so a zero-byte block still
// pairs up.
template <typename Post>
void post_in_chunks(std::size_t bytes, std::vector<MPI_Request> &requests, Post post) {
  std::size_t at = 0;
  do {
    requests.push_back(post(at, static_cast<int>(std::min(kChunkBytes, bytes - at))));
    at += kChunkBytes;
  } while (at < bytes);
}
} // namespace

MpiTransport::MpiTransport(MpiSession &s, MPI_Comm comm, double timeout_s)
    : s_(s), comm_(comm), timeout_s_(timeout_s) {
  MPI_Comm_rank(comm, &rank_);
  MPI_Comm_size(comm, &size_);
}

void MpiTransport::sendrecv(int to, const std::byte *send_data, std::size_t send_bytes, int from,
                            std::byte *recv_data, std::size_t recv_bytes) {
  std::vector<MPI_Request> requests;
  if (from >= 0)
    post_in_chunks(recv_bytes, requests, [&](std::size_t at, int n) {
      MPI_Request r;
      check_mpi(MPI_Irecv(recv_data + at, n, MPI_BYTE, from, kTag, comm_, &r), "MPI_Irecv");
      return r;
    });
  if (to >= 0)
    post_in_chunks(send_bytes, requests, [&](std::size_t at, int n) {
      MPI_Request r;
      check_mpi(MPI_Isend(send_data + at, n, MPI_BYTE, to, kTag, comm_, &r), "MPI_Isend");
      return r;
    });
  s_.wait_all(requests, "point-to-point message of a textbook algorithm", timeout_s_);
}

} // namespace railgauge::collectives
