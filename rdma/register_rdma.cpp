#include "rdma/register_rdma.h"

#include "rdma/fabric_load/fabric_load_benchmarks.h"
#include "rdma/tcp/tcp_benchmarks.h"
#include "rdma/verbs_benchmark.h"

namespace railgauge {

void register_rdma(Registry &registry, rdma::SharedLedgerPlace ledger) {
  registry.add(rdma::make_write_bw());
  registry.add(rdma::make_read_bw());
  registry.add(rdma::make_send_bw());
  registry.add(rdma::make_write_lat());
  registry.add(rdma::make_read_lat());
  registry.add(rdma::make_send_lat());
  registry.add(rdma::make_verbs_pair_matrix(ledger));
  registry.add(rdma::make_qp_scaling());
  registry.add(rdma::make_incast());
  registry.add(rdma::make_latency_under_load());
  registry.add(rdma::make_tcp_lat());
  registry.add(rdma::make_tcp_bw());
  registry.add(rdma::make_tcp_pair_matrix(ledger));
}

} // namespace railgauge
