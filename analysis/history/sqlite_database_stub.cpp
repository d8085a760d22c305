// This build found no libsqlite3: an sqlite: URL is refused, saying what to install.
#include "analysis/history/database.h"
#include "harness/error.h"

namespace railgauge::history {

std::unique_ptr<Database> open_sqlite(const std::string &path, const OpenOptions &) {
  throw InputError("this railgauge was built without SQLite", "sqlite:" + path,
                   "install libsqlite3-dev (scripts/setup.sh) and build again");
}

} // namespace railgauge::history
