#pragma once
// The commit of the source this binary was built from, written at build time
// (cmake/RailgaugeSourceCommit.cmake) into run.json's "railgauge" object: a committed reference
// run names the source that measured it, and a figure is traced to its code.
#include <string_view>

namespace railgauge {

// The full commit hash; empty when the build's source was not a git checkout (a tarball).
std::string_view source_commit();
// Whether tracked files differed from that commit when it was built: such a binary's figures
// are not reproducible from the commit alone.
bool source_dirty();

} // namespace railgauge
