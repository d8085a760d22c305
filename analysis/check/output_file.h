#pragma once
// Writes a verdict or report file whole: to <path>.tmp, then renamed over <path>, so a reader
// (node_exporter's textfile collector, a CI job) never sees half a file.
#include <string>

namespace railgauge::analysis {

// Throws InputError naming `flag` and the path when the file cannot be written.
void write_output_file(const std::string &path, const std::string &text, const std::string &flag);

} // namespace railgauge::analysis
