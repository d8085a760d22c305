#include "gemm/tp_table.h"

#include <algorithm>
#include <map>
#include <set>
#include <tuple>

#include <fmt/format.h>

#include "records/gemm_record.h"

namespace railgauge::gemm {
namespace {

struct Cell {
  Status status = Status::ok;
  double tflops = 0;
  std::optional<double> efficiency;
};

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
    const auto v = record::gemm_call_view(r);
    if (r.status != Status::ok || !v)
      continue;
    const double tflops =
        std::max(r.metrics.value(record::kTflops, 0.0), r.metrics.value(record::kBestTflops, 0.0));
    auto &best = bests[{v->dtype, v->gpu_name}];
    if (tflops > best.tflops) {
      best.tflops = tflops;
      best.where = fmt::format("{} {}{}×{}×{}", r.key,
                               v->op.empty() || v->op == record::kSizeOp ? "" : v->op + " ", v->m,
                               v->n, v->k);
    }
  }
  return bests;
}

// op -> t -> cell, and a table of them per key, model, dtype and setting.
using Rows = std::map<std::string, std::map<std::int64_t, Cell>>;
using Groups = std::map<record::TpPointView::Group, Rows>;

// A point waived before planning keeps its axes' seq/micro_batch, 0 when the model's own was
// asked for, and none of the params planning derives (the CPU backend's layout), so its label is
// empty: show its cells in every table of the same key, model and dtype that lacks them.
void merge_unlabelled_points(Groups &groups) {
  for (auto it = groups.begin(); it != groups.end();) {
    const auto &[bench, model, dtype, seq, micro_batch, gpu_name, extra] = it->first;
    bool merged = false;
    if (seq == 0 || micro_batch == 0 || gpu_name.empty() || extra.empty())
      for (auto &[other, rows] : groups)
        if (other != it->first && std::get<0>(other) == bench && std::get<1>(other) == model &&
            std::get<2>(other) == dtype && (seq == 0 || std::get<3>(other) == seq) &&
            (micro_batch == 0 || std::get<4>(other) == micro_batch) &&
            (gpu_name.empty() || std::get<5>(other) == gpu_name) &&
            (extra.empty() || std::get<6>(other) == extra)) {
          for (const auto &[op, cells] : it->second)
            for (const auto &[tp, cell] : cells)
              rows[op].emplace(tp, cell);
          merged = true;
        }
    it = merged ? groups.erase(it) : std::next(it);
  }
}

// One table body: `ok_text` gives an ok cell's text.
template <class OkText>
void append_table_body(std::string &out, const Rows &rows, const std::set<std::int64_t> &tps,
                       const std::vector<std::string> &ops, std::size_t label_width,
                       const OkText &ok_text) {
  constexpr std::size_t kCellWidth = 9;
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
}

} // namespace

std::string render_tp_table(const std::vector<Record> &records) {
  Groups groups;
  // Keys whose measured records carry best_tflops (an algorithm search, the GPU backend): their
  // tables are followed by one against the best measured in the run.
  std::set<std::string> searched;
  std::map<std::string, std::string> gpu_name_of; // key/dtype -> the GPU's name
  for (const auto &r : records) {
    const auto v = record::tp_point_view(r);
    if (!v)
      continue;
    if (v->best_tflops) {
      searched.insert(v->key);
      gpu_name_of[v->key + "/" + v->dtype] = v->gpu_name;
    }
    groups[v->group()][v->op][v->tp] = Cell{v->status, v->tflops, v->efficiency};
  }

  merge_unlabelled_points(groups);

  const auto bests = run_bests(records);
  std::string out;
  for (const auto &group : groups) {
    const Rows &rows = group.second;
    const auto &[bench, model, dtype, seq, micro_batch, gpu_name, extra] = group.first;
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
      return std::pair(record::op_block_rank(a), a) < std::pair(record::op_block_rank(b), b);
    });

    std::size_t label_width = 4;
    for (const auto &op : ops)
      label_width = std::max(label_width, op.size());

    const std::string setting =
        fmt::format("seq {}, micro_batch {}{}{}{}{}", seq, micro_batch,
                    gpu_name.empty() ? "" : ", ", gpu_name, extra.empty() ? "" : ", ", extra);
    out += fmt::format("\n{} {} {} ({}): {} per GEMM (row) at TP degree t (column)\n", bench, model,
                       dtype, setting,
                       all_efficiency ? "efficiency, % of the dense peak"
                                      : "TFLOP/s (1e12 FLOP/s, median time)");
    append_table_body(out, rows, tps, ops, label_width, [&](const Cell &c) {
      return all_efficiency ? fmt::format("{:.1f}", 100 * *c.efficiency)
                            : fmt::format("{:.4g}", c.tflops);
    });

    // The same cells against the achievable peak: the fastest point of this dtype on this GPU
    // model measured in the run.
    if (!searched.count(bench))
      continue;
    const auto name = gpu_name_of.find(bench + "/" + dtype);
    const auto best = bests.find({dtype, !gpu_name.empty()           ? gpu_name
                                         : name == gpu_name_of.end() ? ""
                                                                     : name->second});
    if (best == bests.end() || !(best->second.tflops > 0))
      continue;
    out += fmt::format("\n{} {} {} ({}): % of the best measured in this run ({:.4g} TFLOP/s, "
                       "{}) per GEMM (row) at TP degree t (column)\n",
                       bench, model, dtype, setting, best->second.tflops, best->second.where);
    append_table_body(out, rows, tps, ops, label_width, [&](const Cell &c) {
      return fmt::format("{:.1f}", 100 * c.tflops / best->second.tflops);
    });
  }
  return out;
}

} // namespace railgauge::gemm
