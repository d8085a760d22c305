#include "harness/cuda/launched_kernels.h"

#include <algorithm>
#include <array>
#include <cstdlib>
#include <memory>
#include <mutex>

#include <cuda_runtime.h>
#include <cupti_callbacks.h>
#include <cupti_driver_cbid.h>
#include <cxxabi.h>
#include <dlfcn.h>
#include <fmt/format.h>

namespace railgauge::gpu {
namespace {

// The CUPTI entry points used, resolved from the library opened at run time. The library is
// never closed: once subscribed, CUPTI stays attached to the driver, and under CUDA 13.0 the
// driver keeps pointers into it after cuptiUnsubscribe, so unloading it crashed the process at
// its next driver call (seen on an H200, driver 580: gemm and cublaslt_gpu_tests segfaulted; the
// same regression is described in icl-utk-edu/papi pull request 594). dlopen of a library
// already loaded returns the same handle, so each point reuses the first one.
struct Cupti {
  void *lib = nullptr;
  decltype(&cuptiSubscribe) subscribe = nullptr;
  decltype(&cuptiEnableCallback) enable_callback = nullptr;
  decltype(&cuptiUnsubscribe) unsubscribe = nullptr;
  decltype(&cuptiGetResultString) result_string = nullptr;
  std::string error(CUptiResult r) const {
    const char *text = nullptr;
    if (result_string)
      result_string(r, &text);
    return text ? text : fmt::format("CUPTI error {}", static_cast<int>(r));
  }
};

// The driver calls that launch a kernel and carry its symbol.
constexpr std::array<CUpti_CallbackId, 6> kLaunches = {
    CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel,
    CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel_ptsz,
    CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx,
    CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx_ptsz,
    CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernel,
    CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernel_ptsz};

struct Seen {
  std::mutex mutex;
  std::vector<std::string> names;
};

std::string demangled(const char *symbol) {
  int status = 0;
  std::unique_ptr<char, decltype(&std::free)> name(
      abi::__cxa_demangle(symbol, nullptr, nullptr, &status), &std::free);
  return status == 0 && name ? std::string(name.get()) : std::string(symbol);
}

void CUPTIAPI on_driver_call(void *userdata, CUpti_CallbackDomain domain, CUpti_CallbackId cbid,
                             const void *data) {
  const auto *call = static_cast<const CUpti_CallbackData *>(data);
  if (domain != CUPTI_CB_DOMAIN_DRIVER_API || call->callbackSite != CUPTI_API_ENTER ||
      std::find(kLaunches.begin(), kLaunches.end(), cbid) == kLaunches.end())
    return;
  auto &seen = *static_cast<Seen *>(userdata);
  const std::string name = call->symbolName ? demangled(call->symbolName) : "(unnamed kernel)";
  std::lock_guard lock(seen.mutex);
  if (std::find(seen.names.begin(), seen.names.end(), name) == seen.names.end())
    seen.names.push_back(name);
}

// libcupti of the toolkit the build used, then any: the soname changes with CUDA's major version.
std::string open_cupti(Cupti &c) {
  std::string tried;
  for (const char *name : {"libcupti.so.13", "libcupti.so.12", "libcupti.so"}) {
    c.lib = dlopen(name, RTLD_NOW | RTLD_LOCAL);
    if (c.lib)
      break;
    tried += fmt::format("{}{}", tried.empty() ? "" : "; ", dlerror());
  }
  if (!c.lib)
    return "libcupti could not be opened (" + tried +
           "): put the toolkit's extras/CUPTI or PyTorch's nvidia/cuda_cupti/lib on "
           "LD_LIBRARY_PATH to name the kernels";
  c.subscribe = reinterpret_cast<decltype(c.subscribe)>(dlsym(c.lib, "cuptiSubscribe"));
  c.enable_callback =
      reinterpret_cast<decltype(c.enable_callback)>(dlsym(c.lib, "cuptiEnableCallback"));
  c.unsubscribe = reinterpret_cast<decltype(c.unsubscribe)>(dlsym(c.lib, "cuptiUnsubscribe"));
  c.result_string =
      reinterpret_cast<decltype(c.result_string)>(dlsym(c.lib, "cuptiGetResultString"));
  if (!c.subscribe || !c.enable_callback || !c.unsubscribe)
    return "libcupti lacks cuptiSubscribe, cuptiEnableCallback or cuptiUnsubscribe";
  return {};
}

} // namespace

LaunchedKernels kernels_launched_by(const std::function<void()> &op) {
  LaunchedKernels out;
  Cupti cupti;
  out.why_not = open_cupti(cupti);
  if (!out.why_not.empty())
    return out;
  Seen seen;
  CUpti_SubscriberHandle subscriber = nullptr;
  if (const auto r = cupti.subscribe(&subscriber, &on_driver_call, &seen); r != CUPTI_SUCCESS) {
    out.why_not = "CUPTI refused a subscriber (" + cupti.error(r) +
                  "): a profiler attached to the process holds it";
    return out;
  }
  for (const auto cbid : kLaunches)
    if (const auto r = cupti.enable_callback(1, subscriber, CUPTI_CB_DOMAIN_DRIVER_API, cbid);
        r != CUPTI_SUCCESS && out.why_not.empty())
      out.why_not = "CUPTI could not watch the driver's launches: " + cupti.error(r);
  if (out.why_not.empty()) {
    op();
    if (const auto e = cudaDeviceSynchronize(); e != cudaSuccess)
      out.why_not = fmt::format("the operation failed: {}", cudaGetErrorString(e));
  }
  cupti.unsubscribe(subscriber);
  if (!out.why_not.empty())
    return out;
  std::lock_guard lock(seen.mutex);
  out.names = std::move(seen.names);
  if (out.names.empty())
    out.why_not = "the operation launched no kernel through the driver";
  return out;
}

} // namespace railgauge::gpu
