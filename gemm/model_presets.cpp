#include "gemm/model_presets.h"

#include <fmt/format.h>

#include "harness/error.h"
#include "records/gemm_record.h"

namespace railgauge::gemm {

const std::vector<ModelShape> &model_presets() {
  // A constant table, built once; the sources are in docs/gemm.md.
  static const std::vector<ModelShape> presets = {
      {"gpt3-175b", 12288, 96, 96, 4 * 12288, 2048, 1, false},
      {"megatron-1t", 25600, 160, 160, 4 * 25600, 2048, 1, false},
      {"llama3-70b", 8192, 64, 8, 28672, 8192, 1, true},
      {"llama3-405b", 16384, 128, 8, 53248, 8192, 1, true},
      {"cpu-small", 1024, 16, 16, 4 * 1024, 1024, 1, false},
  };
  return presets;
}

std::vector<std::string> model_names() {
  std::vector<std::string> names;
  for (const auto &m : model_presets())
    names.push_back(m.name);
  names.emplace_back(kCustomModel);
  return names;
}

void validate_model(const ModelShape &m, const std::string &where) {
  const auto bad = [&](const std::string &what, const std::string &fix) {
    throw InputError(fmt::format("model '{}': {}", m.name, what), where, fix);
  };
  const std::pair<const char *, std::int64_t> dims[] = {
      {record::kHidden, m.hidden}, {record::kHeads, m.heads}, {record::kKvHeads, m.kv_heads},
      {record::kFfn, m.ffn},       {record::kSeq, m.seq},     {record::kMicroBatch, m.micro_batch}};
  for (const auto &[name, value] : dims)
    if (value <= 0)
      bad(fmt::format("{} = {} is not positive", name, value),
          fmt::format("give -a {}=N with N > 0", name));
  if (m.hidden % m.heads != 0)
    bad(fmt::format("heads = {} does not divide hidden = {}", m.heads, m.hidden),
        "the head dimension is hidden/heads: pick heads that divide hidden");
  if (m.heads % m.kv_heads != 0)
    bad(fmt::format("kv_heads = {} does not divide heads = {}", m.kv_heads, m.heads),
        "GQA groups query heads evenly over kv heads: pick kv_heads that divide heads");
}

ModelShape resolve_model(std::string_view name, const ModelOverrides &o, const std::string &where) {
  // 0 (-1 for swiglu) means "the model's own"; anything else out of range is a typo that must not
  // quietly measure the preset instead.
  for (const auto &[axis, value] :
       {std::pair<const char *, std::int64_t>{record::kHidden, o.hidden},
        {record::kHeads, o.heads},
        {record::kKvHeads, o.kv_heads},
        {record::kFfn, o.ffn},
        {record::kSeq, o.seq},
        {record::kMicroBatch, o.micro_batch}})
    if (value < 0)
      throw InputError(fmt::format("{} = {} is negative", axis, value), axis,
                       fmt::format("give a positive {}, or 0 for the model's own", axis));
  if (o.swiglu < -1 || o.swiglu > 1)
    throw InputError(fmt::format("swiglu = {} is not -1, 0 or 1", o.swiglu), "swiglu",
                     "give 1 (gated MLP), 0 (plain MLP) or -1 (the model's own)");
  ModelShape m;
  if (name == kCustomModel) {
    m.name = std::string(kCustomModel);
    if (o.hidden <= 0 || o.heads <= 0 || o.seq <= 0)
      throw InputError("model 'custom' needs hidden, heads and seq", where,
                       "give e.g. -a model=custom -a hidden=4096 -a heads=32 -a seq=4096 "
                       "(kv_heads defaults to heads, ffn to 4·hidden, micro_batch to 1)");
    m.hidden = o.hidden;
    m.heads = o.heads;
    m.kv_heads = o.heads;
    m.ffn = 4 * o.hidden;
    m.seq = o.seq;
    m.micro_batch = 1;
  } else {
    bool found = false;
    for (const auto &p : model_presets())
      if (p.name == name) {
        m = p;
        found = true;
      }
    if (!found) {
      std::string names;
      for (const auto &n : model_names())
        names += fmt::format("{}{}", names.empty() ? "" : ", ", n);
      throw InputError(fmt::format("unknown model '{}'", name), where,
                       fmt::format("use one of: {}", names));
    }
  }
  // Overrides of a preset change its name in nothing: the record keeps every dimension.
  if (o.hidden > 0)
    m.hidden = o.hidden;
  if (o.heads > 0)
    m.heads = o.heads;
  if (o.kv_heads > 0)
    m.kv_heads = o.kv_heads;
  if (o.ffn > 0)
    m.ffn = o.ffn;
  if (o.seq > 0)
    m.seq = o.seq;
  if (o.micro_batch > 0)
    m.micro_batch = o.micro_batch;
  if (o.swiglu >= 0)
    m.swiglu = o.swiglu != 0;
  validate_model(m, where);
  return m;
}

} // namespace railgauge::gemm
