#pragma once
// Reading the files of a run directory as the run-set loader reads them: the whole of a regular
// file or why not, in words a user can act on (a dangling link, a link loop, a FIFO).
#include <filesystem>
#include <optional>
#include <string>

namespace railgauge::analysis {

// Why stat(2) of `path` failed (errno `err`), in words: a link that leads nowhere or in a
// circle says so.
std::string stat_failure(const std::filesystem::path &path, int err);

// The whole of a regular file into `text`, or why not. Refuses anything else (a FIFO would
// block a read forever, a directory cannot be read) before opening it; opens with O_NONBLOCK
// and checks again, in case the path changed between the two; and checks every read(2), so an
// I/O error is named, never a short file.
std::optional<std::string> read_regular_file(const std::filesystem::path &path, std::string &text);

} // namespace railgauge::analysis
