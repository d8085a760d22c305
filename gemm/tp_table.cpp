#include "gemm/tp_table.h"

#include "gemm/layout.h"

#include <algorithm>
#include <map>
#include <set>
#include <tuple>

#include <fmt/format.h>

#include "gemm/transformer_shapes.h"

namespace railgauge::gemm {
namespace {

// key, model, dtype, seq, micro_batch, and "gpu N, layout L" for the GPU backend's points (so
// that two GPUs or layouts of one run do not share cells).
using GroupKey =
    std::tuple<std::string, std::string, std::string, std::int64_t, std::int64_t, std::string>;

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

std::string extra_label(const nlohmann::json &params) {
  std::string label;
  if (params.contains("gpu") && params.at("gpu").is_number_integer())
    label = fmt::format("gpu {}", params.at("gpu").get<std::int64_t>());
  // Training layouts differ per pass (fwd nt, dgrad nn, ...): one table holds them all.
  std::string layout = text_param(params, "layout");
  if (text_param(params, "layouts_from") == kTrainingLayouts)
    layout = kTrainingLayouts;
  if (!layout.empty())
    label += fmt::format("{}layout {}", label.empty() ? "" : ", ", layout);
  return label;
}

// The achievable peak of a dtype on a GPU model: the fastest point measured in the run (the
// best algorithm's TFLOP/s where a record has one), over every key (size sweeps included).
struct RunBest {
  double tflops = 0;
  std::string where;
};

std::map<std::pair<std::string, std::string>, RunBest>
run_bests(const std::vector<Record> &records) {
  std::map<std::pair<std::string, std::string>, RunBest> bests;
  for (const auto &r : records) {
    if (r.status != Status::ok)
      continue;
    const double tflops =
        std::max(r.metrics.value("tflops", 0.0), r.metrics.value("best_tflops", 0.0));
    auto &best = bests[{text_param(r.params, "dtype"), text_param(r.params, "gpu_name")}];
    if (tflops > best.tflops) {
      best.tflops = tflops;
      const std::string op = text_param(r.params, "op");
      best.where =
          fmt::format("{} {}{}×{}×{}", r.key, op.empty() || op == "size" ? "" : op + " ",
                      int_param(r.params, "m"), int_param(r.params, "n"), int_param(r.params, "k"));
    }
  }
  return bests;
}

} // namespace

std::string render_tp_table(const std::vector<Record> &records) {
  std::map<GroupKey, std::map<std::string, std::map<std::int64_t, Cell>>> groups;
  // Keys whose measured records carry best_tflops (an algorithm search, the GPU backend): their
  // tables are followed by one against the best measured in the run.
  std::set<std::string> searched;
  std::map<std::string, std::string> gpu_name_of; // key/dtype -> the GPU's name
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
      if (r.metrics.contains("best_tflops")) {
        searched.insert(r.key);
        gpu_name_of[r.key + "/" + text_param(r.params, "dtype")] = text_param(r.params, "gpu_name");
      }
    }
    groups[{r.key, text_param(r.params, "model"), text_param(r.params, "dtype"),
            int_param(r.params, "seq"), int_param(r.params, "micro_batch"), extra_label(r.params)}]
          [op][int_param(r.params, "tp")] = cell;
  }

  // A point waived before planning keeps its axes' seq/micro_batch, 0 when the model's own was
  // asked for, and none of the params planning derives (the CPU backend's layout), so its label
  // is empty: show its cells in every table of the same key, model and dtype that lacks them.
  for (auto it = groups.begin(); it != groups.end();) {
    const auto &[bench, model, dtype, seq, micro_batch, extra] = it->first;
    bool merged = false;
    if (seq == 0 || micro_batch == 0 || extra.empty())
      for (auto &[other, rows] : groups)
        if (other != it->first && std::get<0>(other) == bench && std::get<1>(other) == model &&
            std::get<2>(other) == dtype && (seq == 0 || std::get<3>(other) == seq) &&
            (micro_batch == 0 || std::get<4>(other) == micro_batch) &&
            (extra.empty() || std::get<5>(other) == extra)) {
          for (const auto &[op, cells] : it->second)
            for (const auto &[tp, cell] : cells)
              rows[op].emplace(tp, cell);
          merged = true;
        }
    it = merged ? groups.erase(it) : std::next(it);
  }

  const auto bests = run_bests(records);
  std::string out;
  for (const auto &[key, rows] : groups) {
    const auto &[bench, model, dtype, seq, micro_batch, extra] = key;
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

    const std::string setting = fmt::format("seq {}, micro_batch {}{}{}", seq, micro_batch,
                                            extra.empty() ? "" : ", ", extra);
    out += fmt::format("\n{} {} {} ({}): {} per GEMM (row) at TP degree t (column)\n", bench, model,
                       dtype, setting,
                       all_efficiency ? "efficiency, % of the dense peak"
                                      : "TFLOP/s (1e12 FLOP/s, median time)");
    // One table body: `ok_text` gives an ok cell's text.
    const auto body = [&](const auto &ok_text) {
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
              text = ok_text(c);
            else
              text = c.status == Status::failed ? "FAILED" : std::string(to_string(c.status));
          }
          out += fmt::format(" {:>{}}", text, kCellWidth);
        }
        out += "\n";
      }
    };
    body([&](const Cell &c) {
      return all_efficiency ? fmt::format("{:.1f}", 100 * *c.efficiency)
                            : fmt::format("{:.4g}", c.tflops);
    });

    // The same cells against the achievable peak: the fastest point of this dtype on this GPU
    // model measured in the run.
    if (!searched.count(bench))
      continue;
    const auto name = gpu_name_of.find(bench + "/" + dtype);
    const auto best = bests.find({dtype, name == gpu_name_of.end() ? "" : name->second});
    if (best == bests.end() || !(best->second.tflops > 0))
      continue;
    out += fmt::format("\n{} {} {} ({}): % of the best measured in this run ({:.4g} TFLOP/s, "
                       "{}) per GEMM (row) at TP degree t (column)\n",
                       bench, model, dtype, setting, best->second.tflops, best->second.where);
    body(
        [&](const Cell &c) { return fmt::format("{:.1f}", 100 * c.tflops / best->second.tflops); });
  }
  return out;
}

} // namespace railgauge::gemm
