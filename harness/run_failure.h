#pragma once
// What the command line does when a run cannot go on: the records file cannot be written (disk
// full, file size limit, directory removed) or a point hangs past --point-timeout. The records
// written so far stay as they are (each is one whole line); run.json is marked "failed" with
// what happened, when its directory can still be written, so that the run can be resumed
// (harness/resume.h).
#include <cstddef>
#include <map>
#include <optional>
#include <string>

#include "harness/manifest.h"
#include "harness/record.h"

namespace railgauge {

// The status of each point's last record in a records file (keep_point_results). Empty when
// the file cannot be read.
std::map<std::string, int> count_records(const std::string &path) noexcept;

// Why a run that ended with `counts` (one per point with a record, kept ones included) is not
// complete: "the run stopped after 4 of 7 points (3 never ran): <stopped_early>"; nullopt when
// every one of `points_planned` has a record.
std::optional<std::string> points_never_run(const std::map<std::string, int> &counts,
                                            std::size_t points_planned,
                                            const std::string &stopped_early);

// Sets run.json's status to "failed", its failure text, end time and counts, and writes it.
// Never throws: returns false and says why on stderr when run.json cannot be written.
bool mark_run_failed(Manifest &manifest, const std::string &why,
                     const std::map<std::string, int> &counts) noexcept;

// Sets run.json's status to "refused" with the reason (the run ran no point now: --expect not
// met on this node or another rank's), its end time and the counts of the records it holds
// (none for a new run; a resumed run keeps its earlier points' counts: check once read "no
// point ran" beside 12 records), and writes it: a distinct end, so that it reads neither as a
// run still going (or killed) nor as a fault of railgauge's.
void mark_run_refused(Manifest &manifest, const std::string &why,
                      const std::map<std::string, int> &counts);

// RunnerOutput::on_point_hung of the command line, on the watchdog's thread while the point
// still hangs: says which point hung and how to resume, marks run.json failed, and ends the
// process with kWatchdogExitCode without running destructors (they would wait for the hung GPU
// work, as cudaStreamSynchronize and cudaDeviceReset do).
[[noreturn]] void end_hung_run(Manifest &manifest, const Record &hung,
                               const std::string &records_path, const std::string &resume_hint);

// RunnerOutput::on_interrupt of the command line, on the signal's thread: says which point the
// signal stopped, where the run directory is and the command that continues it, marks run.json
// "interrupted" (with the signal), and ends the process with kWatchdogExitCode (5), without
// destructors: a point may still be running on the main thread.
[[noreturn]] void end_interrupted_run(Manifest &manifest, const Record *point, int signo,
                                      const std::string &records_path,
                                      const std::string &resume_hint);

} // namespace railgauge
