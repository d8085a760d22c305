#pragma once
// The unit of a perftest row's bandwidth, held to its message rate: perftest's server prints its
// client's figures (rem_bw_rep, src/write_bw.c and read_bw.c) under a header of its own flags, so
// a server run without --report_gbits beside a client with it printed Gb/s under [MB/sec]
// (raids-lab/crater b2f1934, website/content/docs/admin/more/rdma.en.mdx: 94.71 under MB/sec
// and 0.180640 Mpps at 64 KiB, 94.7 Gb/s), and the import read 0.79 Gb/s, ok. The message rate
// times the size gives the bandwidth whatever the header says.

#include <optional>
#include <string>

#include "records/rdma_point_fields.h"

namespace railgauge::importers {

// How the row's figures were read: nullopt when they agree with the header's unit (or cannot be
// held to the rate: no rate, no size, a bandwidth under the print's resolution); else, after
// `bandwidth` is put in the unit that fits, a note saying so, or, where neither unit fits, why
// the row is an error (`*contradicts` set).
std::optional<std::string> unit_by_message_rate(bool header_gbits, std::optional<double> size_bytes,
                                                rdma::record::BandwidthFields &bandwidth,
                                                bool &contradicts);

} // namespace railgauge::importers
