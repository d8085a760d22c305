#include "harness/runner.h"

#include <algorithm>
#include <cstdio>
#include <functional>
#include <memory>
#include <set>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "harness/did_you_mean.h"
#include "harness/error.h"
#include "harness/interrupt_watch.h"
#include "harness/metric_names.h"
#include "harness/progress_log.h"
#include "harness/run_fields.h"
#include "harness/store/store.h"
#include "harness/watchdog.h"

namespace railgauge {
namespace {

// The most keys an error lists in full; a whole node suite plans dozens.
constexpr std::size_t kKeysListed = 12;

std::string axis_list(const std::vector<Axis> &axes) {
  std::string list;
  for (const auto &a : axes)
    list += (list.empty() ? "" : ", ") + a.name;
  return list.empty() ? "(none)" : list;
}

// Every axis name of these benchmarks, each once: what a misspelt axis is matched against.
std::vector<std::string> axis_names(const std::vector<Benchmark *> &benchmarks) {
  std::vector<std::string> names;
  for (const auto *b : benchmarks)
    for (const auto &a : b->axes())
      if (std::find(names.begin(), names.end(), a.name) == names.end())
        names.push_back(a.name);
  return names;
}

// Whatever supported() or run() throws becomes this point's `error` record: one broken point
// never costs the rest of the run, except a lost peer, which sets peer_lost: a rank the store
// saw go (PeerLost) or one silent past the store timeout (StoreTimeout), for whom every later
// point would wait its timeout again in vain.
Outcome run_point(Benchmark &bench, RunContext &ctx, const Point &point, bool &peer_lost) {
  Outcome broke;
  broke.status = Status::error;
  try {
    if (auto why = bench.supported(ctx, point))
      return Outcome::waived(*why);
    return bench.run(ctx, point);
  } catch (const PeerLost &e) {
    broke.reason = e.what();
    peer_lost = true;
  } catch (const StoreTimeout &e) {
    broke.reason = e.what();
    peer_lost = true;
  } catch (const std::exception &e) {
    broke.reason = e.what();
  } catch (...) {
    broke.reason = "an exception that is not a std::exception";
  }
  return broke;
}

// The progress log's counts: the points this run goes through (not those --resume skips), and
// per suite entry those of them supported() will let run, with their budget. Asked only for a
// batch log: supported() only reads the context and the point, and one that throws here ends in
// an error record at once.
std::unique_ptr<ProgressLog> progress_log(const RunPlan &plan, RunContext &ctx,
                                          const RunnerOutput &out) {
  std::size_t points = 0;
  std::vector<ItemPace> items;
  for (const auto &item : plan.items) {
    ctx.set_measure_spec(item.measure);
    auto &pace = items.emplace_back();
    pace.budget_s = item.measure.time_budget_s + item.measure.warmup_s;
    for (const auto &point : item.points) {
      if (out.skip && out.skip(item.benchmark->key(), point))
        continue;
      ++points;
      if (out.log_progress_every_s <= 0) {
        ++pace.to_measure;
        continue;
      }
      try {
        pace.to_measure += !item.benchmark->supported(ctx, point).has_value();
      } catch (const std::exception &) {
      }
    }
  }
  return std::make_unique<ProgressLog>(points, std::move(items), out.log_progress_every_s);
}

// A record of the point, its outcome not yet in it.
Record point_record(const RunIdentity &id, const Benchmark &bench, const Point &point) {
  Record record;
  record.run = id.run_id;
  record.host = id.host;
  record.rank = id.rank;
  record.key = std::string(bench.key());
  record.params = point.params();
  record.axes = record.params;
  return record;
}

// A measured point's record appended, noted when noisier than its bound, and printed.
void report_record(RunnerOutput &out, const Record &record, const PlanItem &item,
                   const Point &point) {
  out.records.append(record);
  if (out.noisy)
    if (auto noisy = noisier_than_bound(record, item.measure.noise_bound, point.label()))
      out.noisy->push_back(std::move(*noisy));
  out.printer.on_record(record);
  // An error is the tool's own trouble (a dead peer, a failing call), not a measurement: say it
  // at once, --quiet or not, so a rank that stops later still shows the point it was at.
  if (record.status == Status::error)
    std::fprintf(stderr, "%srailgauge: error at %s %s: %s\n", out.progress ? "\r\033[K" : "",
                 record.key.c_str(), point.label().c_str(), record.reason.value_or("").c_str());
}

// The terminal's progress line, rewritten in place before each point.
void show_progress_line(const ProgressLog &progress, std::string_view key,
                        const std::string &label) {
  std::fprintf(stderr, "\r\033[K[%zu/%zu %.0fs] %.*s %s", progress.done() + 1, progress.points(),
               progress.elapsed_s(), static_cast<int>(key.size()), key.data(), label.c_str());
  std::fflush(stderr);
}

// Measures the point, and again up to `retries` times while it is ok and noisier than
// `noise_bound` (MeasureSpec::noise_retries); the last measurement is kept, with the noise of each
// earlier one in metrics.noise_before_remeasure (the table's summary counts them).
std::optional<Record>
measure_with_retries(const std::function<std::optional<Record>()> &measure_once, double noise_bound,
                     int retries) {
  auto record = measure_once();
  std::vector<double> noise_before;
  for (int attempt = 1; record && attempt <= retries; ++attempt) {
    const auto noisy = noisier_than_bound(*record, noise_bound, {});
    if (!noisy)
      break;
    noise_before.push_back(noisy->noise);
    record = measure_once();
  }
  if (record && !noise_before.empty())
    record->metrics[metric::kNoiseBeforeRemeasure] = noise_before;
  return record;
}

// The reason of the point a signal cut, with how long it had run: a point cut seconds in is a
// time limit's; one cut minutes in may have hung short of --point-timeout.
std::string interrupted_reason(int signo, const std::string &what, double ran_s,
                               double point_timeout_s) {
  return fmt::format("{}{} while running {}, {:.1f} s in (--point-timeout {:g} s): the run was "
                     "stopped (a job's time limit, scancel, Ctrl-C)",
                     run_field::kInterruptedReasonPrefix, signal_name(signo), what, ran_s,
                     point_timeout_s);
}

} // namespace

Record outcome_record(Record planned, Outcome &outcome) {
  for (const auto &[name, value] : outcome.derived_params.items())
    planned.params[name] = value;
  planned.device = std::move(outcome.device);
  planned.metrics = std::move(outcome.metrics);
  planned.status = outcome.status;
  planned.reason = std::move(outcome.reason);
  planned.time_utc = utc_timestamp_now();
  return planned;
}

AxisOverride parse_axis_override(const std::string &text) {
  const auto eq = text.find('=');
  if (eq == std::string::npos || eq == 0 || eq + 1 == text.size())
    throw InputError(fmt::format("bad axis override '{}'", text), "--axis",
                     "write NAME=VALUES, e.g. -a size_bytes=4KiB:1GiB:*2 or -a threads=1,2");
  return {text.substr(0, eq), text.substr(eq + 1), "--axis " + text};
}

std::size_t RunPlan::point_count() const {
  std::size_t n = 0;
  for (const auto &item : items)
    n += item.points.size();
  return n;
}

RunPlan make_plan(const Registry &registry, const std::vector<SuiteEntry> &entries,
                  const std::vector<AxisOverride> &overrides,
                  const std::optional<std::string> &filter, const RunContext &ctx) {
  RunPlan plan;
  std::set<std::string> override_used;
  std::set<std::string> planned_keys, planned_by_glob;
  std::vector<std::string> suite_keys;
  for (const auto &entry : entries) {
    const auto selected = registry.select(entry.key_glob, entry.where);
    for (const auto *b : selected)
      if (std::find(suite_keys.begin(), suite_keys.end(), b->key()) == suite_keys.end())
        suite_keys.emplace_back(b->key());
    // An entry's axis must exist in at least one benchmark its glob selects.
    for (const auto &[name, spec] : entry.axes) {
      bool known = false;
      for (const auto *b : selected)
        for (const auto &a : b->axes())
          known = known || a.name == name;
      if (!known)
        throw InputError(
            fmt::format("'{}' selects no benchmark with an axis '{}'", entry.key_glob, name),
            entry.axis_where.at(name),
            fmt::format("{}axes of {}: {}", did_you_mean(name, axis_names(selected)),
                        selected.front()->key(), axis_list(selected.front()->axes())));
    }
    for (auto *bench : selected) {
      if (filter && !glob_match(*filter, bench->key()))
        continue;
      // The first entry that names a benchmark decides its points, but entries that each name it
      // exactly add theirs: a burn-in runs gemm.burn in bf16 for minutes, then in fp64 and tf32
      // for seconds, each with its own axes. A glob never repeats a benchmark already planned,
      // and an exact entry never repeats one a glob planned.
      const std::string key(bench->key());
      const bool exact = entry.key_glob == key;
      if (planned_by_glob.contains(key) || (!exact && planned_keys.contains(key)))
        continue;
      planned_keys.insert(key);
      if (!exact)
        planned_by_glob.insert(key);
      const auto axes = bench->axes();
      std::vector<std::vector<AxisValue>> values;
      for (const auto &axis : axes) {
        const AxisOverride *over = nullptr;
        for (const auto &o : overrides)
          if (o.name == axis.name)
            over = &o;
        if (over) {
          override_used.insert(over->name);
          values.push_back(parse_axis_values(axis, over->spec, over->where));
        } else if (auto it = entry.axes.find(axis.name); it != entry.axes.end()) {
          values.push_back(parse_axis_values(axis, it->second, entry.axis_where.at(axis.name)));
        } else {
          values.push_back(bench->defaults_here(axis, ctx));
        }
      }
      plan.items.push_back({bench, cartesian_product(axes, values), entry.measure});
    }
  }
  // The keys to suggest are the suite's: a key of the registry that the suite never plans would
  // select nothing either (a burn-in was offered gemm.cpu_blas).
  if (filter && plan.items.empty())
    throw InputError(
        fmt::format("--filter '{}' selects no benchmark of this suite", *filter), "--filter",
        fmt::format("{}{}", did_you_mean(*filter, suite_keys),
                    suite_keys.size() <= kKeysListed
                        ? fmt::format("the suite's keys: {}", fmt::join(suite_keys, ", "))
                        : fmt::format("the suite plans {} keys, e.g. {}", suite_keys.size(),
                                      fmt::join(suite_keys.begin(),
                                                suite_keys.begin() + kKeysListed, ", "))));
  for (const auto &o : overrides) {
    if (!override_used.count(o.name)) {
      std::string axes;
      for (const auto &item : plan.items)
        axes += fmt::format("{}{}: {}", axes.empty() ? "" : "; ", item.benchmark->key(),
                            axis_list(item.benchmark->axes()));
      std::vector<Benchmark *> planned;
      for (const auto &item : plan.items)
        planned.push_back(item.benchmark);
      throw InputError(
          fmt::format("no planned benchmark has an axis '{}'", o.name), o.where,
          fmt::format("{}axes here: {}", did_you_mean(o.name, axis_names(planned)), axes));
    }
  }
  return plan;
}

std::map<std::string, int> execute_plan(const RunPlan &plan, RunContext &ctx, const RunIdentity &id,
                                        RunnerOutput out) {
  std::map<std::string, int> counts;
  const auto progress_owner = progress_log(plan, ctx, out);
  ProgressLog &progress = *progress_owner;

  // The point the watchdog watches; set before arm(), read only by on_expiry.
  const Benchmark *running_bench = nullptr;
  const Point *running_point = nullptr;
  // The `error` record of the running point that the watchdog or a signal ends, appended from
  // their thread; a record that cannot be written is said, as the run ends anyway.
  const auto running_point_error = [&](std::string reason) {
    Record record = point_record(id, *running_bench, *running_point);
    record.status = Status::error;
    record.reason = std::move(reason);
    record.time_utc = utc_timestamp_now();
    try {
      out.records.append(record);
    } catch (const std::exception &e) {
      std::fprintf(stderr, "railgauge: %s\n", e.what());
    }
    return record;
  };
  std::optional<Watchdog> watchdog;
  if (out.point_timeout_s > 0)
    watchdog.emplace([&](const std::string &what, double waited_s) {
      const Record record = running_point_error(
          fmt::format("did not finish within {:g} s (--point-timeout): {} hangs; a hung GPU "
                      "kernel or library call cannot be cancelled, so the run stops here",
                      waited_s, what));
      if (out.on_point_hung)
        out.on_point_hung(record);
    });

  std::optional<InterruptWatch> interrupts;
  if (out.on_interrupt)
    interrupts.emplace([&](int signo) {
      std::optional<Record> record;
      if (watchdog)
        watchdog->interrupt([&](const std::string &what, double ran_s) {
          record = running_point_error(interrupted_reason(signo, what, ran_s, out.point_timeout_s));
        });
      out.on_interrupt(record ? &*record : nullptr, signo);
    });

  bool peer_lost = false;
  for (std::size_t item_index = 0; item_index < plan.items.size(); ++item_index) {
    const auto &item = plan.items[item_index];
    if (peer_lost)
      break;
    ctx.set_measure_spec(item.measure);
    for (const auto &point : item.points) {
      if (peer_lost) {
        std::fprintf(stderr, "railgauge: the run stops after this point: another rank is lost, "
                             "and every later point would wait for it in vain\n");
        break;
      }
      if (out.skip && out.skip(item.benchmark->key(), point))
        continue;
      progress.before_point(item_index, fmt::format("{} {}", item.benchmark->key(), point.label()));
      if (out.progress)
        show_progress_line(progress, item.benchmark->key(), point.label());
      // One measurement of the point, or nullopt when the watchdog ended it (and recorded it)
      const auto measure_once = [&]() -> std::optional<Record> {
        if (watchdog) {
          running_bench = item.benchmark;
          running_point = &point;
          watchdog->arm(fmt::format("{} {}", item.benchmark->key(), point.label()),
                        out.point_timeout_s);
        }
        Outcome outcome = run_point(*item.benchmark, ctx, point, peer_lost);
        if (watchdog && watchdog->disarm())
          return std::nullopt;
        return outcome_record(point_record(id, *item.benchmark, point), outcome);
      };
      const int retries = ctx.world_size() == 1 ? item.measure.noise_retries : 0;
      const auto measured = measure_with_retries(measure_once, item.measure.noise_bound, retries);
      if (!measured) {
        ++counts[std::string(to_string(Status::error))]; // recorded by the watchdog
        progress.after_point(true);
        continue;
      }
      const Record &record = *measured;
      report_record(out, record, item, point);
      ++counts[std::string(to_string(record.status))];
      progress.after_point(record.status != Status::waived);
      if (peer_lost && out.stopped_early)
        *out.stopped_early = record.reason.value_or("another rank is lost");
    }
  }
  if (out.progress) {
    std::fprintf(stderr, "\r\033[K");
    std::fflush(stderr);
  }
  return counts;
}

} // namespace railgauge
