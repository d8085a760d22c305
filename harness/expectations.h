#pragma once
// `--expect gpus=8,nics=8`: the hardware a node must have. Without it, a node whose GPUs are not
// usable (no driver, fallen off the bus) turns every GPU point into a waiver and the run passes;
// with it, the run says what is missing and ends with exit status 2 (a node to drain).
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace railgauge {

// Parses "gpus=8,nics=8" (several --expect values are merged). Throws InputError naming
// `where` for an unknown name or a count that is not a whole number >= 0.
std::map<std::string, int> parse_expectations(const std::vector<std::string> &texts,
                                              const std::string &where);

// What this machine has of each: gpus = CUDA devices usable (0 without a driver), nics = RDMA
// devices verbs lists (from the run's inventory).
std::map<std::string, int> found_hardware(int cuda_devices, const nlohmann::json &inventory);

// One line per expectation not met ("gpus: expected 8, found 0"), empty when all are.
std::vector<std::string> unmet_expectations(const std::map<std::string, int> &expected,
                                            const std::map<std::string, int> &found);

} // namespace railgauge
