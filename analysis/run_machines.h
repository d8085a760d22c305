#pragma once
// Which machine wrote each run, where several report one host name: VMs of one image all named
// "vm", or a node rebuilt under another's name. A run's machine is its inventory's machine_id
// (/etc/machine-id) and its GPUs' UUIDs. Two runs of a host are of one machine when their
// machine ids agree, or when they share a GPU (a node reinstalled keeps its GPUs and gets a new
// machine id; an RMA changes a GPU and keeps the id); a run without a machine id (an import, a
// bare records.jsonl, a run.json written before inventories carried it) is of no machine, and
// never tells machines apart.
#include <map>
#include <string>
#include <vector>

#include "analysis/run_set.h"

namespace railgauge::analysis {

// Each run's machine, by run directory: the least machine id of the runs of its host that are of
// one machine with it. A run without a machine id takes the machine it shares a GPU with, else
// its host's one machine; "" where its host has none, or two and it shares no GPU with either.
std::map<std::string, std::string> machine_of_runs(const RunSet &set);

// A host name that runs of more than one machine report, with each machine's id and first run.
struct SharedHostName {
  std::string host;
  std::vector<std::pair<std::string, std::string>> machines; // (machine id, a run directory)
};
std::vector<SharedHostName> shared_host_names(const RunSet &set);

} // namespace railgauge::analysis
