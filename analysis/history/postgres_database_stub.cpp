// This build found no libpq: a postgresql:// URL is refused, saying what to install.
#include "analysis/history/database.h"
#include "harness/error.h"

namespace railgauge::history {

std::unique_ptr<Database> open_postgresql(const std::string &url,
                                          const std::optional<std::string> &, const OpenOptions &) {
  throw InputError("this railgauge was built without PostgreSQL (libpq)", url,
                   "install libpq-dev (scripts/setup.sh) and build again, or use sqlite:PATH");
}

} // namespace railgauge::history
