#pragma once
// A fresh directory per test, unique across the processes of a parallel ctest run, removed at
// the end of the test.
#include <cstdint>
#include <filesystem>
#include <string>
#include <unistd.h>

namespace railgauge::testing {

class TempDir {
public:
  explicit TempDir(const std::string &what) {
    // The pid tells parallel test processes apart, the object's address the live directories
    // of one process.
    path_ = (std::filesystem::temp_directory_path() /
             ("railgauge_" + what + "_" + std::to_string(::getpid()) + "_" +
              std::to_string(reinterpret_cast<std::uintptr_t>(this))))
                .string();
    std::filesystem::remove_all(path_);
    std::filesystem::create_directories(path_);
  }
  ~TempDir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  TempDir(const TempDir &) = delete;
  TempDir &operator=(const TempDir &) = delete;
  const std::string &path() const { return path_; }

private:
  std::string path_;
};

} // namespace railgauge::testing
