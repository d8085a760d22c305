#pragma once
// Writes a verdict or report file whole: to <path>.tmp, flushed to disk (fsync) and closed, each
// step checked, then renamed over <path>, so a reader (node_exporter's textfile collector, a CI
// job) never sees half a file, and a file that did not reach the disk is never called written.
#include <string>

namespace railgauge::analysis {

// Throws BackendError (exit status 3: the output failed) naming `flag`, the path and the errno
// text when any step fails; the temporary file is removed then.
void write_output_file(const std::string &path, const std::string &text, const std::string &flag);

} // namespace railgauge::analysis
