#pragma once
// Where the fabric topology fixtures are (tests/fixtures/rdma/topology/): ibnetdiscover, LLDP,
// NetQ and Slurm files, and the published corpus under corpus/.
#include <string>

namespace railgauge::rdma::fabric {

inline const std::string kDir = std::string(RAILGAUGE_TEST_FIXTURES) + "/rdma/topology/";

} // namespace railgauge::rdma::fabric
