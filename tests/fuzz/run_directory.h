#pragma once
// The run directory of the analysis targets: the input is a run.json and a records.jsonl, split
// at the first line "%%" (without one, all of it is records.jsonl and the run has no run.json),
// written to one directory per fuzzing process, rewritten for every input and removed at exit.
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <string_view>

#include <unistd.h>

class RunDirectory {
public:
  RunDirectory() {
    std::string pattern =
        (std::filesystem::temp_directory_path() / "railgauge-fuzz-XXXXXX").string();
    if (::mkdtemp(pattern.data()) == nullptr)
      std::abort();
    path_ = pattern;
  }
  ~RunDirectory() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  RunDirectory(const RunDirectory &) = delete;
  RunDirectory &operator=(const RunDirectory &) = delete;

  // Writes the input's run.json (if any) and records.jsonl; returns the directory.
  std::string write(std::string_view input) const {
    const auto split = input.starts_with("%%\n") ? 0 : input.find("\n%%\n");
    const bool has_manifest = split != std::string_view::npos;
    const std::string_view records =
        has_manifest ? input.substr(split + (split == 0 ? 3 : 4)) : input;
    std::ofstream(path_ / "records.jsonl", std::ios::binary) << records;
    if (has_manifest)
      std::ofstream(path_ / "run.json", std::ios::binary) << input.substr(0, split);
    else
      std::filesystem::remove(path_ / "run.json");
    return path_.string();
  }

private:
  std::filesystem::path path_;
};
