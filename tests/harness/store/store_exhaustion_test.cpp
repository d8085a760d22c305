// The TCP store in a process that has run out of file descriptors: the server backs off instead
// of spinning on accept(), names this process as the one at fault, and lets a rank in once
// descriptors are free again. An executable of its own (store_exhaustion_tests) because of what
// running out of descriptors does to UndefinedBehaviorSanitizer, below.
#include <cerrno>
#include <filesystem>
#include <sys/resource.h>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "harness/store/refusal_log.h"
#include "harness/store/tcp_store.h"
#include "silent_connection.h"
#include "tests/harness/store/store_test_token.h"

// UBSan checks a virtual call whose object it has not seen yet by reading the object's vtable
// through a pipe it opens for the purpose (IsAccessibleMemoryRange in compiler-rt). With every
// descriptor of the process in use, as this test makes them, that pipe fails with EMFILE and
// UBSan reports the object as having an "invalid vptr": in the CI's sanitizer tier it did so for
// the server thread's own std::thread state and for fmt's buffer. The reports of that one check
// (vptr) are suppressed in this executable only (store_exhaustion.supp); ASan and every other
// UBSan check stay on here, and store_tests checks the vptrs of the same server code. Read by
// the sanitizer runtime alone; a build without it never calls it.
extern "C" const char *__ubsan_default_options() {
  return "suppressions=" RAILGAUGE_SOURCE_DIR "/tests/harness/store/store_exhaustion.supp";
}

namespace railgauge {
namespace {

using namespace std::chrono_literals;

double process_cpu_s() {
  rusage usage{};
  ::getrusage(RUSAGE_SELF, &usage);
  return double(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) +
         double(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6;
}

std::size_t open_descriptors() {
  return static_cast<std::size_t>(std::distance(
      std::filesystem::directory_iterator("/proc/self/fd"), std::filesystem::directory_iterator{}));
}

TEST(StoreUnderLoad, OutOfDescriptorsTheServerBacksOffInsteadOfSpinning) {
  TcpStoreServerOptions options;
  options.max_unauthenticated = 100'000; // nothing dropped: the descriptors run out first
  options.hello_timeout = 60'000ms;
  TcpStoreServer server({"127.0.0.1", 0}, kToken, options);
  rlimit saved{};
  ASSERT_EQ(::getrlimit(RLIMIT_NOFILE, &saved), 0);
  rlimit lowered = saved;
  lowered.rlim_cur = open_descriptors() + 40;
  ASSERT_EQ(::setrlimit(RLIMIT_NOFILE, &lowered), 0);
  // Connections until this process has no descriptor left: those the server has not accepted
  // yet wait in the listen backlog, and its accept() fails with EMFILE.
  std::vector<UniqueFd> flood;
  for (int i = 0; i < 200; ++i) {
    auto fd = silent_connection(server.endpoint().port);
    if (!fd && errno == EMFILE)
      break;
    flood.push_back(std::move(fd));
  }
  std::this_thread::sleep_for(200ms);
  const double before_s = process_cpu_s();
  std::this_thread::sleep_for(1000ms);
  const double busy_s = process_cpu_s() - before_s;
  ::setrlimit(RLIMIT_NOFILE, &saved);
  EXPECT_LT(busy_s, 0.2) << "the server spun on accept()";
  bool named_here = false;
  const RefusalLog log = server.refusals();
  for (const auto &r : log.recent())
    named_here =
        named_here || r.why.find("accept: Too many open files: this process has used up its") == 0;
  EXPECT_TRUE(named_here);
  flood.clear();
  TcpStoreClient rank(server.endpoint(), kToken, 1, {5000ms, 5000ms, 5000ms});
  rank.set("after", "1");
  EXPECT_EQ(server.get("after", 1000ms), "1");
}

} // namespace
} // namespace railgauge
