#pragma once
// A launcher's or a shell's message in a benchmark's captured log. A job killed by its time limit
// leaves the benchmark's output cut wherever its last buffer ended, mid-row as often as not, and
// Slurm, Open MPI or the shell then write their own message into the same file, glued to the cut
// row where no newline ended it:
//   "   33554432   8388608   float   sum   -1   1234.5slurmstepd: error: *** STEP 7.0 ON n1 ..."
// The importers read the row before the message as the cut row it is, and the lines after it as
// the launcher's, so that the rows above it still count and the cut fails the run.
#include <cstddef>
#include <optional>
#include <string>

namespace railgauge::importers {

// A launcher's prefix on each line of a captured log: Open MPI's --tag-output "[1,0]<stdout>:"
// and Slurm's srun --label "0: ". Removed so the line reads as nccl-tests printed it.
std::string without_launcher_tag(const std::string &line);

// Where a launcher's or shell's message starts inside `line`, after its first character: Slurm's
// "slurmstepd:" and "srun:", Open MPI's "mpirun"/"prterun" and its dashed banner, a shell's
// "Killed" or "Terminated", coreutils' "timeout:". nullopt for a line with none of them.
std::optional<std::size_t> glued_launcher_text(const std::string &line);

// `line` without its surrounding blanks where it holds a word (a letter), else "": the first
// such line after a cut row is the launcher's own account of the kill (Open MPI's banner is
// dashes, and its words come on the next line: "The user-provided time limit ...").
std::string launcher_words(const std::string &line);

// Whether `line` is a launcher's word of why the run ended: Slurm's "*** STEP 7.0 ON n1
// CANCELLED AT ... DUE TO TIME LIMIT ***" and its oom-kill events, Open MPI's "The user-provided
// time limit ..." and "... exited on signal 9 (Killed)". srun keeps a task's line without its
// newline until the task ends, so under Slurm these come before the cut row, not after it.
bool is_kill_notice(const std::string &line);

} // namespace railgauge::importers
