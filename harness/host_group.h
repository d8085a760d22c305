#pragma once
// The host of a record imported from one file that several hosts wrote (a multi-node nccl-tests
// log): every host, joined by kHostGroupSeparator, "cnode2-001+cnode2-003". Its figures belong
// to the group, not to one of its nodes.
#include <string>
#include <vector>

namespace railgauge {

inline constexpr char kHostGroupSeparator = '+';

// The hosts of a group sorted, each once; "" when there are none. Sorted: one node pair's logs
// named their ranks in either order, and "n013+n014" and "n014+n013" were two nodes.
std::string host_group(const std::vector<std::string> &hosts);

// "a+b" -> {"a", "b"}; a single host -> {host}. Empty names are dropped.
std::vector<std::string> hosts_of_group(const std::string &group);

// How a table cell names a group: up to three hosts joined as they are, more as "a and 9 more
// nodes" (ten names joined filled the cell and pushed the verdict off the line). A host is itself.
std::string group_short_name(const std::string &group);

} // namespace railgauge
