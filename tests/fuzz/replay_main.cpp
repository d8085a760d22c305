// Runs a fuzz target once on every file of the directories (or files) given: the committed
// seed corpus and the inputs that once crashed it. Any crash, sanitizer report or uncaught
// exception fails the test; so does a first argument with no input in it.
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *data, std::size_t size);

namespace {

std::size_t replay(const std::filesystem::path &file) {
  std::ifstream in(file, std::ios::binary);
  const std::vector<char> bytes{std::istreambuf_iterator<char>(in), {}};
  // A copy of exactly `size` bytes, as libFuzzer gives: reads past the end are caught by ASan.
  std::vector<std::uint8_t> data(bytes.begin(), bytes.end());
  LLVMFuzzerTestOneInput(data.empty() ? nullptr : data.data(), data.size());
  return 1;
}

} // namespace

int main(int argc, char **argv) {
  namespace fs = std::filesystem;
  std::size_t seeds = 0, total = 0;
  for (int i = 1; i < argc; ++i) {
    std::size_t here = 0;
    const fs::path path(argv[i]);
    if (fs::is_regular_file(path))
      here += replay(path);
    else if (fs::is_directory(path))
      for (const auto &entry : fs::recursive_directory_iterator(path))
        if (entry.is_regular_file())
          here += replay(entry.path());
    if (i == 1)
      seeds = here;
    total += here;
  }
  std::printf("%zu inputs replayed\n", total);
  if (seeds == 0) {
    std::fprintf(stderr, "no seed input in %s\n", argc > 1 ? argv[1] : "(no argument)");
    return 1;
  }
  return 0;
}
