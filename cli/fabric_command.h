#pragma once
// `railgauge fabric`: the fabric team's questions before a rank starts, and after a run.
//
//   fabric show TOPOLOGY       what railgauge reads of the fabric: nodes, rails, leaves, spines,
//                              cables, uplinks; what it set aside or could not read, with where
//   fabric plan TOPOLOGY       the coverage rounds for k crossings, each uplink's probability
//   fabric simulate TOPOLOGY   the simulator on this fabric: what localisation names for a bad
//                              cable, a bad uplink or a flapping port, and in no-fault trials
//   fabric localise TOPOLOGY RUN_DIR...   from a pair matrix's records (or imported perftest
//                              points), the suspect link, its confidence, the splitting round
//
// Exit status: 0 done (localise: nothing named, every pair placed); 1 localise named a link or
// left pairs out, simulate missed its bar; 4 bad input (the message says where).
#include <CLI/CLI.hpp>

namespace railgauge {

// Adds the command; `exit_code` is set when one of its subcommands ran (inside parse()).
void add_fabric_command(CLI::App &app, int &exit_code);

} // namespace railgauge
