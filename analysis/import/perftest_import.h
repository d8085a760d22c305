#pragma once
// perftest's text output (ib_write_bw, ib_read_lat, ib_send_bw, ...; the client's or the
// server's) as railgauge records, so years of perftest logs can be checked and compared with
// railgauge's own points. Keys and metric names are railgauge's (rdma.write_bw,
// bandwidth_gbits_per_s, latency.p99_s, ...); params.tool says where the numbers came from.
//
// Units: perftest's "Gb/sec" (with --report_gbits) is 1e9 bit/s; without it, "MB/sec" is
// MiB/s (2^20 bytes), converted here. Latency columns are microseconds; t_typical is the
// median. perftest halves the round trip for WRITE and SEND latency, not for READ.
#include <string>
#include <vector>

#include "harness/record.h"

namespace railgauge::importers {

// One record per result row. `source` names the file in error messages. Throws InputError
// (with source:line) when the text is not perftest output or has no result table (a failed
// run: the message quotes perftest's own error line when it printed one).
std::vector<Record> import_perftest(const std::string &text, const std::string &source);

} // namespace railgauge::importers
