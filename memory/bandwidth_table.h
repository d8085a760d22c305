#pragma once
// The curve the memory family exists for: bandwidth against buffer size, one table per place
// measured (host NUMA node and thread count, or GPU), rows the size per array, columns the
// kernels, cells GB/s (1e9 bytes/s) from the median time. The L1/L2/LLC plateaus and the DRAM
// or HBM plateau show down a column. Points that did not measure say so in one word.
#include <string>
#include <vector>

#include "harness/record.h"

namespace railgauge::memory {

// Records of other families, and groups with no measured point, are left out; "" when none.
std::string render_bandwidth_table(const std::vector<Record> &records);

// "16 KiB", "1 GiB", "3000 B": binary units for sizes that are powers of two.
std::string size_label(std::int64_t bytes);

} // namespace railgauge::memory
