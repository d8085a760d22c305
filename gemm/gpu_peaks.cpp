#include "gemm/gpu_peaks.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

#include "harness/data_paths.h"
#include "harness/error.h"
#include "railgauge/config.h"

namespace railgauge::gemm {
namespace {

constexpr const char *kSchema = "railgauge.gpu_peaks/1";

std::string at(const std::string &path, const YAML::Node &node) {
  const auto mark = node.Mark();
  return mark.line >= 0 ? fmt::format("{}:{}", path, mark.line + 1) : path;
}

std::string required_text(const YAML::Node &entry, const char *field, const std::string &path) {
  const YAML::Node value = entry[field];
  if (!value || !value.IsScalar() || value.as<std::string>().empty())
    throw InputError(fmt::format("a GPU entry has no `{}`", field), at(path, entry),
                     fmt::format("give every entry match, name, source and tflops ({})", field));
  return value.as<std::string>();
}

} // namespace

std::optional<double> GpuPeak::tflops_of(Dtype dtype) const {
  for (const auto &[d, value] : tflops)
    if (d == dtype)
      return value;
  return std::nullopt;
}

GpuPeakTable parse_gpu_peaks(const std::string &yaml_text, const std::string &path) {
  YAML::Node root;
  try {
    root = YAML::Load(yaml_text);
  } catch (const YAML::Exception &e) {
    throw InputError(fmt::format("the GPU peak table is not valid YAML: {}", e.msg),
                     e.mark.line >= 0 ? fmt::format("{}:{}", path, e.mark.line + 1) : path,
                     "fix the YAML syntax at that line");
  }
  if (!root.IsMap() || !root["schema"] || root["schema"].as<std::string>("") != kSchema)
    throw InputError("the GPU peak table does not declare its schema", path,
                     fmt::format("start the file with `schema: {}`", kSchema));
  const YAML::Node gpus = root["gpus"];
  if (!gpus || !gpus.IsSequence())
    throw InputError("the GPU peak table has no `gpus` list", at(path, root),
                     "list the SKUs under `gpus:`");
  GpuPeakTable table;
  table.path = path;
  for (const auto &entry : gpus) {
    if (!entry.IsMap())
      throw InputError("a GPU entry is not a mapping", at(path, entry),
                       "write each entry as `- match: ...` with name, source and tflops");
    GpuPeak peak;
    peak.where = at(path, entry);
    peak.match = required_text(entry, "match", path);
    peak.name = required_text(entry, "name", path);
    peak.source = required_text(entry, "source", path);
    if (const YAML::Node unless = entry["unless"]) {
      if (!unless.IsSequence())
        throw InputError(fmt::format("GPU entry '{}': `unless` is not a list", peak.match),
                         at(path, unless), "write e.g. unless: [\"NVL\"]");
      for (const auto &u : unless)
        peak.unless.push_back(u.as<std::string>());
    }
    const YAML::Node tflops = entry["tflops"];
    if (!tflops || !tflops.IsMap() || tflops.size() == 0)
      throw InputError(fmt::format("GPU entry '{}' has no `tflops` mapping", peak.match),
                       peak.where, "give e.g. tflops: {bf16: 989, fp8_e4m3: 1979}");
    for (const auto &item : tflops) {
      const std::string where = at(path, item.first);
      const Dtype dtype = parse_dtype(item.first.as<std::string>(), where);
      double value = 0;
      try {
        value = item.second.as<double>();
      } catch (const YAML::Exception &) {
        value = -1;
      }
      if (!(value > 0) || !std::isfinite(value))
        throw InputError(fmt::format("GPU entry '{}': the {} peak '{}' is not a positive number",
                                     peak.match, to_string(dtype), item.second.Scalar()),
                         where, "give the dense peak in TFLOP/s (1e12 FLOP/s)");
      peak.tflops.emplace_back(dtype, value);
    }
    table.gpus.push_back(std::move(peak));
  }
  return table;
}

GpuPeakTable load_gpu_peaks(const std::string &path) {
  std::ifstream in(path);
  if (!in)
    throw InputError("cannot read the GPU peak table", path,
                     "set RAILGAUGE_GPU_PEAKS to the path of gpu_peaks.yaml, or give the peak "
                     "with -a peak_tflops=X");
  std::stringstream text;
  text << in.rdbuf();
  return parse_gpu_peaks(text.str(), path);
}

const GpuPeak *find_gpu_peak(const GpuPeakTable &table, std::string_view device_name) {
  const auto contains = [&](const std::string &part) {
    return device_name.find(part) != std::string_view::npos;
  };
  for (const auto &gpu : table.gpus)
    if (contains(gpu.match) && std::none_of(gpu.unless.begin(), gpu.unless.end(), contains))
      return &gpu;
  return nullptr;
}

std::string default_gpu_peaks_path() {
  if (const char *env = std::getenv("RAILGAUGE_GPU_PEAKS"); env && *env)
    return env;
  return (data_dir() / "peaks" / "gpu_peaks.yaml").string();
}

} // namespace railgauge::gemm
