#pragma once
// The status of a point that ran on every local GPU at once (gemm.burn, memory.burn,
// memory.pattern): failed when a GPU's data was wrong, else error when one broke or when no GPU
// took part; each part named in the reason.
#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "harness/record.h"

namespace railgauge {

// `wrong` and `broke`: one text per GPU ("gpu0: ..."). The failed reason reads "<wrong_head> 2 of
// 8 GPU(s): ...", the others "... broke during <during>" and "no GPU took part in <during>".
// "GPU 3 (NVIDIA H200, GPU-..., 0000:1a:00.0)": how the reasons above name a GPU.
std::string every_gpu_label(int gpu, std::string_view name, std::string_view uuid,
                            std::string_view pci);

void set_every_gpu_status(Outcome &out, std::size_t gpus, const std::vector<std::string> &wrong,
                          const std::vector<std::string> &broke, std::string_view wrong_head,
                          std::string_view during);

} // namespace railgauge
