#pragma once
// An NCCL group (ncclGroupStart ... ncclGroupEnd) as a scope (compiled only with NCCL). NCCL
// keeps the group depth per thread: a group left open by an exception would silently defer every
// later NCCL call of the thread into a group that nobody ends, so the destructor ends it.
//
// Caveat: when the exception came from an NCCL call inside the group, NCCL has recorded the
// error and ncclGroupEnd discards the group's calls; after any other exception it launches the
// calls already made, which the session's watchdog then bounds like any other work.
#include <nccl.h>

#include "collectives/nccl/nccl_session.h"

namespace railgauge::collectives {

class NcclGroup {
public:
  NcclGroup() { check_nccl(ncclGroupStart(), "ncclGroupStart"); }
  ~NcclGroup() {
    if (open_)
      ncclGroupEnd(); // its error is the group's; the exception in flight is the one to report
  }
  NcclGroup(const NcclGroup &) = delete;
  NcclGroup &operator=(const NcclGroup &) = delete;

  // Ends the group, launching its calls; throws BackendError when NCCL reports an error.
  void end() {
    open_ = false;
    check_nccl(ncclGroupEnd(), "ncclGroupEnd");
  }

private:
  bool open_ = true;
};

} // namespace railgauge::collectives
