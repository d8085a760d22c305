#pragma once
// The textbook algorithms' Transport over MPI point-to-point on a communicator: nonblocking
// sends and receives waited for under the session's watchdog, split into 1 GiB messages (MPI
// counts are int).
#include "collectives/mpi/mpi_session.h"
#include "collectives/transport.h"

namespace railgauge::collectives {

class MpiTransport final : public Transport {
public:
  MpiTransport(MpiSession &s, MPI_Comm comm, double timeout_s);
  int rank() const override { return rank_; }
  int size() const override { return size_; }
  void sendrecv(int to, const std::byte *send_data, std::size_t send_bytes, int from,
                std::byte *recv_data, std::size_t recv_bytes) override;

private:
  MpiSession &s_;
  MPI_Comm comm_;
  double timeout_s_;
  int rank_ = 0, size_ = 1;
};

} // namespace railgauge::collectives
