#include "analysis/check/output_file.h"

#include <cstdio>
#include <fstream>

#include <fmt/format.h>

#include "harness/error.h"

namespace railgauge::analysis {

void write_output_file(const std::string &path, const std::string &text, const std::string &flag) {
  const std::string tmp = path + ".tmp";
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    out << text;
    out.flush();
    if (!out)
      throw InputError(fmt::format("cannot write '{}'", path), flag,
                       "give a path in a directory that exists and is writable");
  }
  if (std::rename(tmp.c_str(), path.c_str()) != 0) {
    std::remove(tmp.c_str());
    throw InputError(fmt::format("cannot write '{}'", path), flag,
                     "give a path in a directory that exists and is writable");
  }
}

} // namespace railgauge::analysis
