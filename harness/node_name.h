#pragma once
// Which node this process runs on, as records, run.json and the drain list name it. Under Slurm
// that is SLURMD_NODENAME, the name `scontrol` drains: it can differ from the host name
// (NodeHostname), and several slurmd on one host (simulated nodes, ../shared/reference/slurm.md)
// share one host name while each is a node of its own. Elsewhere it is the host name.
#include <string>

namespace railgauge {

// `slurmd_nodename` when it is set and not empty, else `host_name` (either may be null).
std::string node_name_from(const char *slurmd_nodename, const char *host_name);

// This process's node: node_name_from($SLURMD_NODENAME, gethostname()); "" when neither is known.
std::string this_node_name();

// The host name other machines resolve (gethostname), "" when unknown: for addresses and for
// telling whether ranks share a machine, never for naming a node (two simulated nodes are one
// machine).
std::string this_machine_host_name();

} // namespace railgauge
