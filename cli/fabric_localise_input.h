#pragma once
// `railgauge fabric localise`'s input and output: the measured pairs of run directories (a pair
// matrix's record, or perftest points imported with --host A+B), and the verdict printed.
#include <string>
#include <vector>

#include "rdma/matrix_localise.h"

namespace railgauge {

// InputError when the runs hold no pair matrix record and no perftest bandwidth point of a
// host pair.
std::vector<rdma::MeasuredPair> read_measured_pairs(const std::vector<std::string> &runs);

void print_localisation(const rdma::MatrixLocalisation &r, const std::string &topology, bool json);

} // namespace railgauge
