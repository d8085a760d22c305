#include "harness/node_name.h"

#include <cstdlib>
#include <unistd.h>

namespace railgauge {

std::string node_name_from(const char *slurmd_nodename, const char *host_name) {
  if (slurmd_nodename && *slurmd_nodename)
    return slurmd_nodename;
  return host_name ? host_name : "";
}

std::string this_machine_host_name() {
  char host[256] = {};
  return gethostname(host, sizeof host - 1) == 0 ? host : "";
}

std::string this_node_name() {
  return node_name_from(std::getenv("SLURMD_NODENAME"), this_machine_host_name().c_str());
}

} // namespace railgauge
