#pragma once
// The other processes on a GPU while railgauge measures it. A co-tenant holding some of a GPU's
// SMs makes a healthy GPU read slow: the verdict must say so, or a rack team replaces a good GPU.
// NVML lists each GPU's compute processes (nvml.cpp, gpu["compute_processes"]); the telemetry
// snapshots before and after a point keep that list, and this names the ones that are not this
// process.
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

namespace railgauge {

// /proc/<pid>/comm, or nullopt where it cannot be read (the process is gone, or lives in another
// PID namespace).
std::optional<std::string> process_name(unsigned pid);

// The processes of the snapshots `before` and `after` (their "compute_processes") that are not
// `self_pid`: {"count", "processes": [{"pid", "name", "used_memory_bytes"}], "note"}. NVML gives
// host PIDs: in a container this process's own pid is not among them, so when `self_pid` is
// not listed and a process is, one of them is taken to be this one (count less one, the note
// says so). Null when neither snapshot could list the processes.
nlohmann::json foreign_processes(const nlohmann::json &before, const nlohmann::json &after,
                                 unsigned self_pid);

} // namespace railgauge
