#include "gemm/tp_table.h"

#include <algorithm>
#include <map>
#include <set>
#include <tuple>

#include <fmt/format.h>

#include "gemm/transformer_shapes.h"

namespace railgauge::gemm {
namespace {

using GroupKey = std::tuple<std::string, std::string, std::string, std::int64_t, std::int64_t>;

std::string text_param(const nlohmann::json &params, const char *name) {
  const auto it = params.find(name);
  return it != params.end() && it->is_string() ? it->get<std::string>() : "";
}

std::int64_t int_param(const nlohmann::json &params, const char *name) {
  const auto it = params.find(name);
  return it != params.end() && it->is_number_integer() ? it->get<std::int64_t>() : 0;
}

// Block order: qkv.fwd, qkv.dgrad, qkv.wgrad, scores.fwd, ... (unknown ops last, by name).
int op_rank(const std::string &op) {
  int rank = 0;
  for (const auto &layer : layer_names())
    for (const auto &pass : pass_names()) {
      if (op == layer + "." + pass)
        return rank;
      ++rank;
    }
  return rank;
}

struct Cell {
  Status status = Status::ok;
  double tflops = 0;
  std::optional<double> efficiency;
};

} // namespace

std::string render_tp_table(const std::vector<Record> &records) {
  std::map<GroupKey, std::map<std::string, std::map<std::int64_t, Cell>>> groups;
  for (const auto &r : records) {
    // A point waived before it was planned (a t that does not split the model) has no `op`:
    // its gemm and pass axes name the row.
    std::string op = text_param(r.params, "op");
    if (op.empty() && !text_param(r.params, "gemm").empty())
      op = text_param(r.params, "gemm") + "." + text_param(r.params, "pass");
    if (!r.params.contains("tp") || op.empty())
      continue;
    if (op == "size")
      continue;
    Cell cell;
    cell.status = r.status;
    if (r.status == Status::ok) {
      cell.tflops = r.metrics.value("tflops", 0.0);
      if (r.metrics.contains("efficiency"))
        cell.efficiency = r.metrics.at("efficiency").get<double>();
    }
    groups[{r.key, text_param(r.params, "model"), text_param(r.params, "dtype"),
            int_param(r.params, "seq"), int_param(r.params, "micro_batch")}][op]
          [int_param(r.params, "tp")] = cell;
  }

  // A point waived before planning keeps its axes' seq/micro_batch, 0 when the model's own was
  // asked for: show its cells in every table of the same key, model and dtype that lacks them.
  for (auto it = groups.begin(); it != groups.end();) {
    const auto &[bench, model, dtype, seq, micro_batch] = it->first;
    bool merged = false;
    if (seq == 0 || micro_batch == 0)
      for (auto &[other, rows] : groups)
        if (other != it->first && std::get<0>(other) == bench && std::get<1>(other) == model &&
            std::get<2>(other) == dtype) {
          for (const auto &[op, cells] : it->second)
            for (const auto &[tp, cell] : cells)
              rows[op].emplace(tp, cell);
          merged = true;
        }
    it = merged ? groups.erase(it) : std::next(it);
  }

  std::string out;
  for (const auto &[key, rows] : groups) {
    const auto &[bench, model, dtype, seq, micro_batch] = key;
    std::set<std::int64_t> tps;
    bool all_efficiency = true;
    bool any_measured = false;
    for (const auto &[op, cells] : rows)
      for (const auto &[tp, cell] : cells) {
        tps.insert(tp);
        any_measured = any_measured || cell.status != Status::waived;
        if (cell.status == Status::ok && !cell.efficiency)
          all_efficiency = false;
      }
    if (!any_measured)
      continue; // a curve of nothing but waivers: the summary table already says why
    std::vector<std::string> ops;
    for (const auto &[op, cells] : rows)
      ops.push_back(op);
    std::stable_sort(ops.begin(), ops.end(), [](const std::string &a, const std::string &b) {
      return std::pair(op_rank(a), a) < std::pair(op_rank(b), b);
    });

    std::size_t label_width = 4;
    for (const auto &op : ops)
      label_width = std::max(label_width, op.size());
    constexpr std::size_t kCellWidth = 9;

    out += fmt::format("\n{} {} {} (seq {}, micro_batch {}): {} per GEMM (row) at TP degree t "
                       "(column)\n",
                       bench, model, dtype, seq, micro_batch,
                       all_efficiency ? "efficiency, % of the dense peak"
                                      : "TFLOP/s (1e12 FLOP/s, median time)");
    out += fmt::format("{:<{}}", "gemm", label_width);
    for (std::int64_t tp : tps)
      out += fmt::format(" {:>{}}", fmt::format("t={}", tp), kCellWidth);
    out += "\n";
    for (const auto &op : ops) {
      out += fmt::format("{:<{}}", op, label_width);
      for (std::int64_t tp : tps) {
        const auto &cells = rows.at(op);
        const auto it = cells.find(tp);
        std::string text;
        if (it != cells.end()) {
          const Cell &c = it->second;
          if (c.status == Status::ok)
            text = all_efficiency ? fmt::format("{:.1f}", 100 * *c.efficiency)
                                  : fmt::format("{:.4g}", c.tflops);
          else
            text = c.status == Status::failed ? "FAILED" : std::string(to_string(c.status));
        }
        out += fmt::format(" {:>{}}", text, kCellWidth);
      }
      out += "\n";
    }
  }
  return out;
}

} // namespace railgauge::gemm
