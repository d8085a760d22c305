#pragma once
// The fields of run.json, a run directory's manifest (harness/manifest.h,
// results/schema/run.schema.json): written by the manifest, the run and burn-in commands, the
// resume and failure paths and the importers, and read by analysis (run sets, check, history,
// calibrate) under these names, so that a field renamed on one side breaks the build instead of
// reading as absent on the other.
namespace railgauge::run_field {

// Every run.json
inline constexpr const char *kSchema = "schema";
inline constexpr const char *kRun = "run"; // the run's id
inline constexpr const char *kHost = "host";
inline constexpr const char *kRank = "rank";
inline constexpr const char *kArgv = "argv";
inline constexpr const char *kCwd = "cwd";
inline constexpr const char *kStartUtc = "start_utc";
inline constexpr const char *kEndUtc = "end_utc";
inline constexpr const char *kStatus = "status";
inline constexpr const char *kCounts = "counts"; // records by status
inline constexpr const char *kRailgauge = "railgauge";
inline constexpr const char *kLibraries = "libraries";
// ... kRailgauge's: the build that ran
inline constexpr const char *kVersion = "version";
inline constexpr const char *kCompiler = "compiler";
inline constexpr const char *kBackends = "backends";
inline constexpr const char *kCudaArchitectures = "cuda_architectures";
inline constexpr const char *kCudaToolkit = "cuda_toolkit";
inline constexpr const char *kSourceCommit = "source_commit";
inline constexpr const char *kSourceDirty = "source_dirty";

// kStatus's values
inline constexpr const char *kRunning = "running";
inline constexpr const char *kComplete = "complete";
inline constexpr const char *kRefusedStatus = "refused";
inline constexpr const char *kInterruptedStatus = "interrupted";
inline constexpr const char *kFailedStatus = "failed";

// What the run command adds: the suite ({name, path}), the plan and its point count, the world of
// ranks ({size, rank}), what --expect found, the ranks lost, other work beside the run, resumes
inline constexpr const char *kSuite = "suite";
inline constexpr const char *kSuiteName = "name";
inline constexpr const char *kSuitePath = "path";
inline constexpr const char *kPlan = "plan";
inline constexpr const char *kPointsPlanned = "points_planned";
inline constexpr const char *kWorld = "world";
inline constexpr const char *kWorldSize = "size";
inline constexpr const char *kWorldRank = "rank";
inline constexpr const char *kExpect = "expect";
inline constexpr const char *kExpectExpected = "expected";
inline constexpr const char *kExpectFound = "found";
inline constexpr const char *kExpectUnmet = "unmet";
inline constexpr const char *kLostRanks = "lost_ranks";
inline constexpr const char *kLostRank = "rank";
inline constexpr const char *kLostHost = "host";
inline constexpr const char *kLostReason = "reason";
inline constexpr const char *kCpuContention = "cpu_contention";
inline constexpr const char *kResumes = "resumes";
// ... each resume's: when, by which command, the status it found, the points it skipped and ran
inline constexpr const char *kPreviousStatus = "previous_status";
inline constexpr const char *kPointsSkipped = "points_skipped";
inline constexpr const char *kPointsToRun = "points_to_run";

// How a run that did not complete ended: why it failed or was refused, the signal that stopped it
inline constexpr const char *kFailure = "failure";
inline constexpr const char *kRefused = "refused";
inline constexpr const char *kInterrupted = "interrupted";
// How the error record of the point a signal cut begins ("interrupted by SIGTERM while running
// ..."): resume runs it again, and check does not judge the node on it.
inline constexpr const char *kInterruptedReasonPrefix = "interrupted by ";

// An imported run's: what the import says of itself, and the node it names
inline constexpr const char *kImported = "imported";
inline constexpr const char *kImportedNode = "node";
inline constexpr const char *kImportedNodeFrom = "node_from";
inline constexpr const char *kImportedTool = "tool";
inline constexpr const char *kImportedFile = "file";

} // namespace railgauge::run_field
