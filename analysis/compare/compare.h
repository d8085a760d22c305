#pragma once
// Runs side by side: `railgauge compare RUN_A RUN_B [...]` (RoCE against InfiniBand, before
// against after). Points are matched by key and params (and by device with match_device, for
// the same machine before and after); each input's value of a point is the median over its
// records (every GPU; the ranks of one run that wrote one figure, once), and its noise is the
// larger of the repetitions' spread (time_s p10..p90, relative half-width) and the spread over
// those records (min to max for up to 9 records, p10..p90 from 10 on: one outlier among a
// fleet's nodes is not its noise).
//
// ratio = value(input i) / value(input 0). speedup = ratio when higher is better (bandwidth,
// TFLOP/s), 1/ratio when lower is (time, latency): > 1 always means input i is better. A
// difference counts only when |ratio - 1| exceeds the two inputs' noise added together. Where
// both sides hold a fleet's records (kLeastRecordsForTail on: two clusters' pairs, matched by
// size with their hosts ignored), the slow tail is compared too: the 10th percentile (90th of a
// time) of input i against input 0's, beyond the single-sample tolerance, is "worse in its tail"
// even when the medians agree (a third of the pairs at 0.6x read "within noise" before).
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "analysis/run_set.h"

namespace railgauge::compare {

inline constexpr const char *kCompareSchema = "railgauge.compare/1";

inline constexpr double kSingleSampleTolerance = 0.10;

struct CompareOptions {
  std::optional<std::string> metric; // a path like metrics.busbw_gbytes_per_s; else per point
  bool match_device = false;
  // Params a benchmark derives while running (they differ between runs of the same point), those
  // naming the GPU or rank (a point of one cluster is all its GPUs' values), and an element
  // count that size_bytes and the rank count already say.
  std::vector<std::string> ignore_params = {
      "passes_per_call", "threads_used", "total_bytes", "gpu", "rank", "count"};
  // A point where either side is one sample (an nccl-tests text log's average, a perftest
  // bandwidth line) has no spread to judge a difference by. Beyond this relative difference it
  // is still called better or worse, saying so: SuperBench's Azure quick-scan fails a node at
  // 10 % below its baseline for GEMM, H2D/D2H, IB loopback and all_reduce 8 GB
  // (microsoft/superbench, docs: "variance" rule). Within it: "single sample", no verdict.
  double single_sample_tolerance = kSingleSampleTolerance;
};

// What a point is, never set aside as context (below): the collective or GEMM measured, its
// size, type and shape.
inline constexpr const char *kIdentityParams[] = {
    "size_bytes", "dtype", "op", "in_place", "group_type", "direction", "tp",
    "pass",       "gemm",  "m",  "n",        "k",          "batch",     "model"};

// How long a burn ran (harness/every_gpu.h), not what it measured: a GEMM burn's rate over 33 s
// is matched to its rate over 48 s (a burn-in's plan sizes each phase to the GPUs it finds), and
// where the inputs' durations differ the comparison says so beside the other context.
inline constexpr const char *kWindowParams[] = {"duration_s"};

// A param set aside as context: for some key, every input holds one value of it (or none), and
// the inputs' values differ (world_size 8 against 80, the GPU's name, the file imported). Points
// are matched without it, and the comparison says so.
struct ParamDifference {
  std::string param;
  std::vector<std::string> values; // per input, its values joined ("-": the param is absent)
};

struct Side {
  double value = 0;
  std::optional<double> noise; // relative half-width; none when no repetitions were recorded
  int records = 0;
  // From kLeastRecordsForTail records on (a fleet's pairs or nodes): the records' 10th and 90th
  // percentiles, its tails. A fabric a third of whose pairs run at 0.6x keeps its median, and
  // compare judges its tail too (verdicts.h).
  std::optional<double> p10, p90;
};

// The records a side needs before its tail is compared: the 10th percentile of 20 is the second
// lowest, where of 10 it would be the lowest alone.
inline constexpr int kLeastRecordsForTail = 20;

struct PointComparison {
  std::string key;
  nlohmann::json params; // as matched (ignored params removed)
  std::string device;    // when matching by device
  std::string metric;
  bool higher_is_better = true;
  std::vector<std::optional<Side>> sides; // one per input; none: the input lacks the point
  // Per input, where it lacks this size but measured the same curve (key, other params, device)
  // on both sides of it: its value read off that curve, linear in log size, with the larger
  // noise of the two sizes around it. A ratio is taken against it when the other side was
  // measured: two runs that swept different sizes (nccl-tests -b/-e/-f of their own) are still
  // compared. Empty when no input needed it.
  std::vector<std::optional<Side>> interpolated;
  // Per input i >= 1, against input 0: none when either side lacks the point.
  std::vector<std::optional<double>> ratio;
  // Per input: the status of its record of the point that did not end ok ("failed", "error"),
  // else empty.
  std::vector<std::string> not_ok;
  // "better", "worse", "within noise"; "better (single sample, > 10 %)" and its "worse" twin,
  // "single sample" (within the tolerance); "only in A"; "failed in B" (counted worse)...
  std::vector<std::string> verdict;
  // False for a node's total (offload.all_gpus_h2d of every GPU at once) whose GPUs are compared
  // one by one as its parts: listed with its verdict, but the summaries count each GPU once and
  // the node's total not again (on one GPU the two are the same figure, counted twice).
  bool counted = true;
};

struct Summary {
  std::string group; // a family ("memory") or a key ("memory.host_read")
  int input = 1;     // compared with input 0
  int points = 0;    // with a ratio, the geometric mean's
  double geomean_speedup = 1;
  int better = 0, worse = 0, within_noise = 0;
  // A side without repetitions and a difference within the single-sample tolerance: no verdict.
  // (Beyond it, the point counts as better or worse.)
  int single_sample = 0;
  // Of `points`, those whose one side was read off the other sizes of its curve (≈ in the
  // tables): counted like the rest, and said, as they hold no measurement of their own.
  int read_off_curve = 0;
  // Points that failed in the candidate: counted worse, not in `points` (no ratio to average).
  int failed = 0;
  // Points the baseline measured and the candidate holds no record of (a GPU that dropped off the
  // bus, a phase that never ran): apart from the rest, and a family of such points only is still
  // summed up, so a figure that vanished is never a family that vanished.
  int missing = 0;
  // Points the candidate holds and the baseline does not (a phase added, a size swept only
  // there): listed, and counted here so that no side's points go unsaid.
  int added = 0;
  // Points both hold with no ratio to take: a baseline of zero, or a one-rank collective in
  // place, which moves no data (NCCL returns at once: 1.4 us for 16 GiB on one H200).
  int unrated = 0;
};

struct Comparison {
  std::vector<std::string> labels;
  std::vector<std::vector<std::string>> inputs; // run directories per input
  std::vector<PointComparison> points;          // sorted by key, then params
  std::vector<ParamDifference> context;         // params set aside, as above
  // Points that every input holds, of all points; when under half, `hint` says why and what to
  // ignore.
  int matched = 0;
  std::string hint;
  // What could not be read of the inputs ("B: DIR/records.jsonl: cannot be read: ..."): a run
  // whose records were lost was counted among the runs compared and said only on stderr, never
  // in the JSON, the markdown or the report.
  std::vector<std::string> problems;
  double single_sample_tolerance = kSingleSampleTolerance;
  std::vector<Summary> families;
  std::vector<Summary> keys;
};

// The metric compared when none is given: the first the records have of busbw, Gb/s (and a
// fabric load's aggregate) and GB/s bandwidth, TFLOP/s, latency p50 (or a latency_s), time
// median.
std::string default_metric(const nlohmann::json &metrics);
// Relative half-width of the repetitions behind a value: a timed record's (time_s,
// harness/noise_bound.h: railgauge, nccl-tests JSON with -I), nccl-tests text -I's
// iteration_cv_percent, latency p50/p90 or stdev/mean (perftest), or a burn-in GPU's figure
// second by second (metrics.series); none when the record holds one sample (a bandwidth
// average).
std::optional<double> relative_noise(const nlohmann::json &metrics);

// Throws InputError when fewer than two inputs or labels of the wrong count are given.
Comparison compare_runs(std::vector<analysis::RunSet> inputs,
                        const std::vector<std::string> &labels, const CompareOptions &options);

nlohmann::json to_json(const Comparison &c);
// For `railgauge report`; `where` (the file) is named when the JSON is not a comparison.
Comparison comparison_from_json(const nlohmann::json &j, const std::string &where = "report");
// What the reader must know before the table, one line each: the warning when most points are
// unmatched (and how many were read off a curve), the params set aside as context, the params
// every point has.
std::vector<std::string> preamble(const Comparison &c);
// A side's value as the tables show it: "-" when absent, "≈" before an interpolated one.
std::string value_text(const PointComparison &p, std::size_t input);
// The rows of a key with more than `most_per_key` points are its worst, and a line counts the
// rest (listed_points.h); 0 lists every point. 200: more than any one sweep's sizes of a key
// (nccl-tests 8 B to 16 GiB, both in place and out, is 64), far fewer than a fleet's pairs.
inline constexpr std::size_t kMostRowsPerKey = 200;
// A summary's geometric mean as the tables print it: "-" where no point has a ratio (every one
// failed), never the 1.000 of an empty mean, which reads as parity.
// What the summaries leave out, as a sentence for their heading ("" when nothing): the node
// totals whose GPUs are compared one by one.
std::string uncounted_note(const Comparison &c);

// The per-point table: key, params (less those every point has), metric, each input's value, and
// per candidate its ratio, noise (both sides' added) and verdict; with `header`, a first row
// naming the columns. compare's table and markdown and report's page print these rows.
std::vector<std::vector<std::string>>
point_rows(const Comparison &c, const std::vector<const PointComparison *> &points, bool header);

std::string speedup_text(const Summary &s);
// The summary's column of points only a candidate holds: "only in roce" where one input is
// compared, else "only in the compared" (each row names its candidate).
std::string only_in_compared_heading(const Comparison &c);
std::string render_table(const Comparison &c, std::size_t most_per_key = kMostRowsPerKey);
std::string render_markdown(const Comparison &c, std::size_t most_per_key = kMostRowsPerKey);

} // namespace railgauge::compare
